import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/** An AWS service allowed to publish, scoped to our account (and to its own resources where AWS documents an ARN). */
export interface ServicePublisher {
  /** e.g. `budgets.amazonaws.com`. */
  readonly service: string;
  /** `aws:SourceArn` patterns (ArnLike); omitted where AWS does not document one. */
  readonly sourceArnLike?: readonly string[];
  /** Exact `aws:SourceArn` values (ArnEquals), when the publishing resources are known. */
  readonly sourceArns?: readonly string[];
}

export interface SecureTopicProps {
  readonly topicName: string;
  readonly fifo: boolean;
  /** Customer managed key; its key policy must let every publisher use it. */
  readonly masterKey: kms.IKey;
  /** AWS services that publish (always constrained by `aws:SourceAccount`). */
  readonly servicePublishers?: readonly ServicePublisher[];
  /** Extra principals: 12-digit account IDs or IAM role ARNs. */
  readonly principals?: readonly string[];
  readonly displayName?: string;
}

/**
 * "A topic with its publishers' policy": encrypted with a customer managed key, TLS-only
 * (explicit Deny of every SNS action on aws:SecureTransport=false), SHA-256 signatures, and a
 * resource policy that names exactly who may publish.
 */
export class SecureTopic extends Construct {
  readonly topic: sns.Topic;
  private readonly account: string;

  constructor(scope: Construct, id: string, props: SecureTopicProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.topic = new sns.Topic(this, 'Topic', {
      topicName: props.topicName,
      displayName: props.displayName,
      fifo: props.fifo || undefined,
      // Publishers set MessageDeduplicationId = content hash; content-based dedup is the fallback.
      contentBasedDeduplication: props.fifo || undefined,
      fifoThroughputScope: props.fifo ? sns.FifoThroughputScope.MESSAGE_GROUP : undefined,
      masterKey: props.masterKey,
      // CDK's enforceSSL denies only sns:Publish; the statement below covers every action.
      enforceSSL: false,
      signatureVersion: '2',
    });
    this.account = stack.account;

    // The documented pattern: `Bool aws:SecureTransport = false` (a request without the key, such
    // as an AWS service publishing, is not denied; every client request over plain HTTP is).
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyInsecureTransport',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sns:*'],
        resources: [this.topic.topicArn],
        conditions: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );

    for (const svc of props.servicePublishers ?? []) this.allowServicePublisher(svc);

    const principals = (props.principals ?? []).map(toPrincipal);
    if (principals.length > 0) {
      this.topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowPublishFromConfiguredProducers',
          effect: iam.Effect.ALLOW,
          principals,
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
        }),
      );
    }
  }

  /** Let an AWS service publish, from this account only (and from the given resources). */
  allowServicePublisher(svc: ServicePublisher): void {
    const conditions: Record<string, Record<string, string | string[]>> = {
      StringEquals: { 'aws:SourceAccount': this.account },
    };
    if (svc.sourceArnLike)
      conditions.ArnLike = { 'aws:SourceArn': unwrapSingle(svc.sourceArnLike) };
    if (svc.sourceArns) conditions.ArnEquals = { 'aws:SourceArn': [...svc.sourceArns] };
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: `AllowPublishFrom${sidPart(svc.service)}`,
        effect: iam.Effect.ALLOW,
        principals: [new iam.ServicePrincipal(svc.service)],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions,
      }),
    );
  }
}

/** One value as a string (as IAM shows it), several as a list. */
export const unwrapSingle = (values: readonly string[]): string | string[] =>
  values.length === 1 ? values[0] : [...values];

/** Account ID → account root principal; role ARN → that role. */
export function toPrincipal(idOrArn: string): iam.IPrincipal {
  return /^\d{12}$/.test(idOrArn)
    ? new iam.AccountPrincipal(idOrArn)
    : new iam.ArnPrincipal(idOrArn);
}

function sidPart(service: string): string {
  const name = service.split('.')[0];
  return name.charAt(0).toUpperCase() + name.slice(1).replace(/[^A-Za-z0-9]/g, '');
}
