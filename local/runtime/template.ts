/**
 * Reads the synthesized CloudFormation templates into the local plan: tables, queues, topics,
 * subscriptions, functions and event source mappings, with every Ref / Fn::GetAtt / Fn::ImportValue /
 * Fn::Join / Fn::Sub resolved to local names, URLs and ARNs. This is the only description of the
 * resources the local runtime has: there is no second, hand-kept list.
 */
import type { CfnResource, SynthesizedStack } from './synth';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../emulators/local-aws';

/** A template scalar (string, number, boolean) as text; '' for anything else. */
const scalarText = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : '';

export interface TablePlan {
  logicalId: string;
  stackName: string;
  tableName: string;
  keySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
  attributeDefinitions: { AttributeName: string; AttributeType: 'S' | 'N' | 'B' }[];
  ttlAttribute?: string;
  globalSecondaryIndexes?: unknown[];
  localSecondaryIndexes?: unknown[];
}

export interface QueuePlan {
  logicalId: string;
  stackName: string;
  queueName: string;
  url: string;
  arn: string;
  fifo: boolean;
  /** CreateQueue attributes as SQS takes them (strings), RedrivePolicy resolved to local ARNs. */
  attributes: Record<string, string>;
  visibilityTimeoutSeconds: number;
  redrive?: { deadLetterTargetArn: string; maxReceiveCount: number };
}

export interface SubscriptionPlan {
  logicalId: string;
  topicArn: string;
  protocol: string;
  endpoint: string;
  rawMessageDelivery: boolean;
  filterPolicy?: Record<string, unknown>;
  filterPolicyScope: 'MessageAttributes' | 'MessageBody';
  deadLetterTargetArn?: string;
}

export interface TopicPlan {
  logicalId: string;
  stackName: string;
  topicName: string;
  arn: string;
  fifo: boolean;
  contentBasedDeduplication: boolean;
}

export interface FunctionPlan {
  logicalId: string;
  stackName: string;
  functionName: string;
  arn: string;
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  environment: Record<string, string>;
}

export interface MappingPlan {
  logicalId: string;
  functionLogicalId: string;
  queueArn: string;
  batchSize: number;
  maxBatchingWindowSeconds: number;
  reportBatchItemFailures: boolean;
  maxConcurrency?: number;
  enabled: boolean;
}

/** An S3 bucket of the templates and the object-created notifications configured on it. */
export interface BucketPlan {
  logicalId: string;
  stackName: string;
  bucketName: string;
}

/**
 * A bucket's notification configuration as a template declares it: inline on `AWS::S3::Bucket`, or
 * CDK's `Custom::S3BucketNotifications` for a bucket imported from another stack. Resolved, unread:
 * `notificationRulesOf` (local/emulators/s3-notifications.ts) reads and checks it.
 */
export interface BucketNotificationPlan {
  logicalId: string;
  stackName: string;
  bucketName: string;
  configuration: unknown;
}

export interface LocalPlan {
  tables: TablePlan[];
  buckets: BucketPlan[];
  bucketNotifications: BucketNotificationPlan[];
  queues: QueuePlan[];
  topics: TopicPlan[];
  subscriptions: SubscriptionPlan[];
  functions: FunctionPlan[];
  mappings: MappingPlan[];
  /** CfnOutput values per stack, resolved (CDK's own `ExportsOutput…` outputs left out). */
  outputs: Record<string, Record<string, string>>;
  /** Resources of types the local runtime has no emulation for (alarms, dashboards, IAM, KMS, logs…). */
  ignored: Record<string, number>;
}

export interface PlanOptions {
  /** The SQS emulator endpoint, e.g. http://127.0.0.1:4566 (queue URLs are `<endpoint>/<account>/<name>`). */
  sqsEndpoint: string;
  /** The local HTTP API's base URL: the `ApiEndpoint` of the stack's HTTP API (the push endpoint). */
  httpApiEndpoint?: string;
}

type Attributes = Record<string, string>;
interface Located {
  stackName: string;
  logicalId: string;
  resource: CfnResource;
  ref: string;
  attributes: Attributes;
}

const arnOf = (service: string, resource: string, region = LOCAL_REGION) =>
  `arn:aws:${service}:${region}:${LOCAL_ACCOUNT_ID}:${resource}`;

const propsOf = (resource: CfnResource): Record<string, unknown> => resource.Properties ?? {};

/** CloudFormation's generated physical name when a template sets none (stack-logicalId, shortened). */
const generatedName = (stackName: string, logicalId: string, max = 80): string =>
  `${stackName}-${logicalId}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, max);

/** S3 bucket names are lower case, 3–63 characters of letters, digits, `-` and `.`. */
const generatedBucketName = (stackName: string, logicalId: string): string =>
  `${stackName}-${logicalId}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63)
    .replace(/-+$/, '');

class Resolver {
  private readonly byStack = new Map<string, Map<string, Located>>();
  private readonly exports = new Map<string, { stackName: string; value: unknown }>();

  constructor(
    private readonly stacks: SynthesizedStack[],
    private readonly options: PlanOptions,
  ) {
    for (const stack of stacks) {
      const located = new Map<string, Located>();
      this.byStack.set(stack.stackName, located);
      for (const [logicalId, resource] of Object.entries(stack.template.Resources ?? {})) {
        located.set(logicalId, {
          stackName: stack.stackName,
          logicalId,
          resource,
          ...this.identify(stack.stackName, logicalId, resource),
        });
      }
      for (const output of Object.values(stack.template.Outputs ?? {})) {
        if (output.Export) {
          const name = this.resolve(stack.stackName, output.Export.Name);
          this.exports.set(String(name), { stackName: stack.stackName, value: output.Value });
        }
      }
    }
  }

  located(stackName: string, logicalId: string): Located {
    const found = this.byStack.get(stackName)?.get(logicalId);
    if (!found) throw new Error(`${stackName}: no resource ${logicalId} in the template`);
    return found;
  }

  all(): Located[] {
    return [...this.byStack.values()].flatMap((stack) => [...stack.values()]);
  }

  /** Local physical identity of one resource: what Ref returns and its Fn::GetAtt attributes. */
  private identify(
    stackName: string,
    logicalId: string,
    resource: CfnResource,
  ): { ref: string; attributes: Attributes } {
    const props = propsOf(resource);
    const name = (key: string, fallback: string) =>
      typeof props[key] === 'string' ? props[key] : fallback;
    switch (resource.Type) {
      case 'AWS::SQS::Queue': {
        const fifo = props.FifoQueue === true || props.FifoQueue === 'true';
        const queueName = name(
          'QueueName',
          `${generatedName(stackName, logicalId, fifo ? 75 : 80)}${fifo ? '.fifo' : ''}`,
        );
        const url = `${this.options.sqsEndpoint}/${LOCAL_ACCOUNT_ID}/${queueName}`;
        const arn = arnOf('sqs', queueName);
        return { ref: url, attributes: { Arn: arn, QueueName: queueName, QueueUrl: url } };
      }
      case 'AWS::SNS::Topic': {
        const fifo = props.FifoTopic === true || props.FifoTopic === 'true';
        const topicName = name(
          'TopicName',
          `${generatedName(stackName, logicalId, fifo ? 75 : 80)}${fifo ? '.fifo' : ''}`,
        );
        const arn = arnOf('sns', topicName);
        return { ref: arn, attributes: { TopicArn: arn, TopicName: topicName } };
      }
      case 'AWS::DynamoDB::Table': {
        const tableName = name('TableName', generatedName(stackName, logicalId));
        const arn = arnOf('dynamodb', `table/${tableName}`);
        return { ref: tableName, attributes: { Arn: arn, StreamArn: `${arn}/stream/local` } };
      }
      case 'AWS::Lambda::Function': {
        const functionName = name('FunctionName', generatedName(stackName, logicalId, 64));
        return {
          ref: functionName,
          attributes: { Arn: arnOf('lambda', `function:${functionName}`) },
        };
      }
      case 'AWS::S3::Bucket': {
        const bucketName = name('BucketName', generatedBucketName(stackName, logicalId));
        return {
          ref: bucketName,
          attributes: {
            Arn: `arn:aws:s3:::${bucketName}`,
            DomainName: `${bucketName}.s3.amazonaws.com`,
            RegionalDomainName: `${bucketName}.s3.${LOCAL_REGION}.amazonaws.com`,
          },
        };
      }
      case 'AWS::KMS::Key': {
        const keyId = `local-${logicalId}`;
        return { ref: keyId, attributes: { Arn: arnOf('kms', `key/${keyId}`), KeyId: keyId } };
      }
      case 'AWS::ApiGatewayV2::Api': {
        const apiId = `local${logicalId.slice(-8).toLowerCase()}`;
        return {
          ref: apiId,
          attributes: {
            ApiId: apiId,
            ApiEndpoint:
              this.options.httpApiEndpoint ??
              `https://${apiId}.execute-api.${LOCAL_REGION}.amazonaws.com`,
          },
        };
      }
      case 'AWS::CloudWatch::Dashboard':
        return { ref: name('DashboardName', generatedName(stackName, logicalId)), attributes: {} };
      default:
        return {
          ref: logicalId,
          attributes: { Arn: arnOf('local', `${resource.Type}/${logicalId}`) },
        };
    }
  }

  resolve(stackName: string, value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(stackName, item));
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    if (keys.length === 1) {
      const [key] = keys;
      const argument = object[key];
      switch (key) {
        case 'Ref':
          return this.ref(stackName, String(argument));
        case 'Fn::GetAtt': {
          const [logicalId, attribute] = Array.isArray(argument)
            ? (argument as string[])
            : String(argument).split('.');
          return this.getAtt(stackName, logicalId, attribute);
        }
        case 'Fn::ImportValue': {
          const exportName = String(this.resolve(stackName, argument));
          const exported = this.exports.get(exportName);
          if (!exported) throw new Error(`${stackName}: no stack exports ${exportName}`);
          return this.resolve(exported.stackName, exported.value);
        }
        case 'Fn::Join': {
          const [separator, parts] = argument as [string, unknown[]];
          return (this.resolve(stackName, parts) as unknown[]).map(String).join(separator);
        }
        case 'Fn::Select': {
          const [index, list] = argument as [number | string, unknown];
          return (this.resolve(stackName, list) as unknown[])[Number(index)];
        }
        case 'Fn::Split': {
          const [separator, text] = argument as [string, unknown];
          return String(this.resolve(stackName, text)).split(separator);
        }
        case 'Fn::Sub': {
          const [template, variables] = Array.isArray(argument)
            ? (argument as [string, Record<string, unknown>])
            : [String(argument), {}];
          return template.replace(/\$\{([^}!][^}]*)\}/g, (_match, name: string) => {
            if (name in variables) return String(this.resolve(stackName, variables[name]));
            const [logicalId, attribute] = name.split('.');
            return String(
              attribute
                ? this.getAtt(stackName, logicalId, attribute)
                : this.ref(stackName, logicalId),
            );
          });
        }
        default:
          break;
      }
    }
    return Object.fromEntries(
      Object.entries(object).map(([key, item]) => [key, this.resolve(stackName, item)]),
    );
  }

  private ref(stackName: string, name: string): string {
    switch (name) {
      case 'AWS::Region':
        return LOCAL_REGION;
      case 'AWS::AccountId':
        return LOCAL_ACCOUNT_ID;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return stackName;
      case 'AWS::StackId':
        return `arn:aws:cloudformation:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:stack/${stackName}/local`;
      case 'AWS::NoValue':
        return '';
      default:
        break;
    }
    const parameter = this.stacks.find((stack) => stack.stackName === stackName)?.template
      .Parameters?.[name];
    if (parameter) return scalarText(parameter.Default);
    return this.located(stackName, name).ref;
  }

  private getAtt(stackName: string, logicalId: string, attribute: string): string {
    const located = this.located(stackName, logicalId);
    const value = located.attributes[attribute];
    if (value === undefined)
      throw new Error(
        `${stackName}: Fn::GetAtt ${logicalId}.${attribute} has no local value (${located.resource.Type})`,
      );
    return value;
  }
}

const asBoolean = (value: unknown): boolean => value === true || value === 'true';
const asNumber = (value: unknown, fallback: number): number =>
  value === undefined || value === null || value === '' ? fallback : Number(value);

/** CreateQueue attribute names the emulator (and SQS) accept, from the AWS::SQS::Queue properties. */
const QUEUE_ATTRIBUTES = [
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'DelaySeconds',
  'FifoQueue',
  'FifoThroughputLimit',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
] as const;

export const buildPlan = (stacks: SynthesizedStack[], options: PlanOptions): LocalPlan => {
  const resolver = new Resolver(stacks, options);
  const plan: LocalPlan = {
    tables: [],
    buckets: [],
    bucketNotifications: [],
    queues: [],
    topics: [],
    subscriptions: [],
    functions: [],
    mappings: [],
    outputs: {},
    ignored: {},
  };
  const subscriptionOf = (
    logicalId: string,
    topicArn: string,
    props: Record<string, unknown>,
  ): SubscriptionPlan => {
    const redrive = props.RedrivePolicy as { deadLetterTargetArn?: string } | undefined;
    const filter = props.FilterPolicy;
    return {
      logicalId,
      topicArn,
      protocol: String(props.Protocol),
      endpoint: String(props.Endpoint),
      rawMessageDelivery: asBoolean(props.RawMessageDelivery),
      filterPolicy:
        filter === undefined
          ? undefined
          : typeof filter === 'string'
            ? (JSON.parse(filter) as Record<string, unknown>)
            : (filter as Record<string, unknown>),
      filterPolicyScope:
        props.FilterPolicyScope === 'MessageBody' ? 'MessageBody' : 'MessageAttributes',
      deadLetterTargetArn: redrive?.deadLetterTargetArn,
    };
  };

  for (const located of resolver.all()) {
    const { stackName, logicalId, resource } = located;
    const props = resolver.resolve(stackName, propsOf(resource)) as Record<string, unknown>;
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table': {
        const ttl = props.TimeToLiveSpecification as
          { AttributeName?: string; Enabled?: boolean } | undefined;
        plan.tables.push({
          logicalId,
          stackName,
          tableName: located.ref,
          keySchema: props.KeySchema as TablePlan['keySchema'],
          attributeDefinitions: props.AttributeDefinitions as TablePlan['attributeDefinitions'],
          ttlAttribute: ttl && asBoolean(ttl.Enabled) ? ttl.AttributeName : undefined,
          globalSecondaryIndexes: props.GlobalSecondaryIndexes as unknown[] | undefined,
          localSecondaryIndexes: props.LocalSecondaryIndexes as unknown[] | undefined,
        });
        break;
      }
      case 'AWS::S3::Bucket':
        plan.buckets.push({ logicalId, stackName, bucketName: located.ref });
        if (props.NotificationConfiguration !== undefined)
          plan.bucketNotifications.push({
            logicalId,
            stackName,
            bucketName: located.ref,
            configuration: props.NotificationConfiguration,
          });
        break;
      case 'Custom::S3BucketNotifications':
        plan.bucketNotifications.push({
          logicalId,
          stackName,
          bucketName: String(props.BucketName),
          configuration: props.NotificationConfiguration,
        });
        break;
      case 'AWS::SQS::Queue': {
        const attributes: Record<string, string> = {};
        for (const name of QUEUE_ATTRIBUTES)
          if (props[name] !== undefined) attributes[name] = scalarText(props[name]);
        const redrive = props.RedrivePolicy as
          { deadLetterTargetArn: string; maxReceiveCount: number | string } | undefined;
        if (redrive) {
          attributes.RedrivePolicy = JSON.stringify({
            deadLetterTargetArn: redrive.deadLetterTargetArn,
            maxReceiveCount: Number(redrive.maxReceiveCount),
          });
        }
        if (props.RedriveAllowPolicy !== undefined)
          attributes.RedriveAllowPolicy = JSON.stringify(props.RedriveAllowPolicy);
        plan.queues.push({
          logicalId,
          stackName,
          queueName: located.attributes.QueueName,
          url: located.ref,
          arn: located.attributes.Arn,
          fifo: asBoolean(props.FifoQueue),
          attributes,
          visibilityTimeoutSeconds: asNumber(props.VisibilityTimeout, 30),
          redrive: redrive && {
            deadLetterTargetArn: redrive.deadLetterTargetArn,
            maxReceiveCount: Number(redrive.maxReceiveCount),
          },
        });
        break;
      }
      case 'AWS::SNS::Topic': {
        plan.topics.push({
          logicalId,
          stackName,
          topicName: located.attributes.TopicName,
          arn: located.ref,
          fifo: asBoolean(props.FifoTopic),
          contentBasedDeduplication: asBoolean(props.ContentBasedDeduplication),
        });
        for (const [index, inline] of (
          (props.Subscription as Record<string, unknown>[]) ?? []
        ).entries())
          plan.subscriptions.push(subscriptionOf(`${logicalId}#${index}`, located.ref, inline));
        break;
      }
      case 'AWS::SNS::Subscription':
        plan.subscriptions.push(subscriptionOf(logicalId, String(props.TopicArn), props));
        break;
      case 'AWS::Lambda::Function': {
        const variables =
          (props.Environment as { Variables?: Record<string, unknown> })?.Variables ?? {};
        plan.functions.push({
          logicalId,
          stackName,
          functionName: located.ref,
          arn: located.attributes.Arn,
          handler: scalarText(props.Handler),
          timeoutSeconds: asNumber(props.Timeout, 3),
          memoryMb: asNumber(props.MemorySize, 128),
          environment: {
            ...Object.fromEntries(
              Object.entries(variables).map(([name, value]) => [name, String(value)]),
            ),
            // What the deployed function reads from its bundled file (contract/function-config.ts).
            ...stacks.find((stack) => stack.stackName === stackName)?.functionConfigs?.[logicalId],
          },
        });
        break;
      }
      case 'AWS::Lambda::EventSourceMapping': {
        const rawFunction = propsOf(resource).FunctionName;
        const functionLogicalId =
          rawFunction && typeof rawFunction === 'object' && 'Ref' in rawFunction
            ? String((rawFunction as { Ref: string }).Ref)
            : String(
                resolver
                  .all()
                  .find(
                    (candidate) =>
                      candidate.resource.Type === 'AWS::Lambda::Function' &&
                      (candidate.ref === props.FunctionName ||
                        candidate.attributes.Arn === props.FunctionName),
                  )?.logicalId,
              );
        const scaling = props.ScalingConfig as { MaximumConcurrency?: number } | undefined;
        plan.mappings.push({
          logicalId,
          functionLogicalId,
          queueArn: String(props.EventSourceArn),
          batchSize: asNumber(props.BatchSize, 10),
          maxBatchingWindowSeconds: asNumber(props.MaximumBatchingWindowInSeconds, 0),
          reportBatchItemFailures: ((props.FunctionResponseTypes as string[]) ?? []).includes(
            'ReportBatchItemFailures',
          ),
          maxConcurrency: scaling?.MaximumConcurrency,
          enabled: props.Enabled === undefined ? true : asBoolean(props.Enabled),
        });
        break;
      }
      default:
        plan.ignored[resource.Type] = (plan.ignored[resource.Type] ?? 0) + 1;
    }
  }

  for (const stack of stacks) {
    const outputs: Record<string, string> = {};
    for (const [name, output] of Object.entries(stack.template.Outputs ?? {})) {
      if (name.startsWith('ExportsOutput')) continue;
      outputs[name] = String(resolver.resolve(stack.stackName, output.Value));
    }
    plan.outputs[stack.stackName] = outputs;
  }
  return plan;
};
