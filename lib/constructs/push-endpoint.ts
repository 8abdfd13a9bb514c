import { Aws, CfnOutput, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { consumerEnvironment } from '../../contract/environment';
import {
  DEFAULT_PUSH_BURST,
  DEFAULT_PUSH_RATE_PER_SECOND,
  DEFAULT_REFUSED_AUTH_ALARM,
  PUSH_ENV,
  REFUSED_AUTH_METRIC,
  pushEnvironmentConfig,
  type PushEndpointConfig,
} from '../../contract/push-endpoint';
import { METRIC_NAMESPACE } from '../../contract/telemetry';
import type { BillingDedupConfig } from '../config';
import { resourceName, serviceName } from '../naming';
import { ConsumerFunction } from './consumer-function';
import { tableKeyStatementProps } from '../streams/table-grants';

/** The SigV4 route of the ingest API (docs/push-endpoint.md "AWS callers (IAM)"). */
export const IAM_EVENTS_PATH = '/v1/iam/events';
export const PUSH_IAM_ROUTE_ARN_OUTPUT = 'PushIamRouteArn';

export interface PushEndpointProps {
  readonly config: PushEndpointConfig;
  readonly functionName: string;
  readonly serviceName: string;
  readonly apiName: string;
  readonly alarmName: string;
  readonly alertsTopic: sns.ITopic;
  /** The shared cost-events topic (absent: Azure only, enforced at synth). */
  readonly costTopic?: sns.ITopic;
  readonly costTopicFifo: boolean;
  readonly ledgerTable: dynamodb.ITable;
  readonly dedupTable: dynamodb.ITable;
  readonly dedupTtl: Duration;
  readonly dataKeyArn: string;
  readonly messagingKeyArn: string;
  readonly opsTopic: sns.ITopic;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly logLevel: string;
}

/**
 * The push endpoint (docs/push-endpoint.md): an API Gateway HTTP API — not a function URL — because its
 * stage throttling answers a burst with 429 before the function runs (a function URL has only reserved
 * concurrency, whose throttles surface as 5xx-like errors to the sender), it has access logs, and routes
 * can take IAM (SigV4) authorization one by one. Only `/v1/iam/events` has a gateway authorizer (IAM:
 * the signature and the caller's own execute-api:Invoke permission); every request, that one included,
 * is authorized by the function (Google OIDC, Azure token hash, API key hash, the IAM role's binding),
 * whose answers and refused-auth metric the alarm watches.
 */
export class PushEndpoint extends Construct {
  readonly api: apigw.HttpApi;
  readonly function: ConsumerFunction;
  readonly refusedAuthAlarm: cloudwatch.Alarm;
  /** `/v1/iam/events`, only with `iamCallers`: what a caller's account lets its role invoke. */
  readonly iamRoute?: apigw.HttpRoute;

  constructor(scope: Construct, id: string, props: PushEndpointProps) {
    super(scope, id);
    const { config } = props;
    this.function = new ConsumerFunction(this, 'Function', {
      functionName: props.functionName,
      description: 'billing-dedup: Pub/Sub pushes, Azure webhooks and the usage ingest API',
      ...(config.iamCallers ? { bundledConfig: { iamCallers: config.iamCallers } } : {}),
      entry: 'lambda/handlers/push-endpoint.ts',
      timeout: Duration.seconds(25),
      memorySize: 512,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      environment: {
        ...consumerEnvironment({
          ledgerTableName: props.ledgerTable.tableName,
          dedupTableName: props.dedupTable.tableName,
          dedupTtlSeconds: props.dedupTtl.toSeconds(),
          serviceName: props.serviceName,
          logLevel: props.logLevel,
        }),
        [PUSH_ENV.config]: JSON.stringify(pushEnvironmentConfig(config)),
        [PUSH_ENV.alertsTopicArn]: props.alertsTopic.topicArn,
        ...(props.costTopic ? { [PUSH_ENV.costTopicArn]: props.costTopic.topicArn } : {}),
        [PUSH_ENV.costTopicFifo]: String(props.costTopicFifo),
      },
    });
    const add = (statement: iam.PolicyStatementProps) =>
      this.function.role.addToPrincipalPolicy(new iam.PolicyStatement(statement));
    add({
      sid: 'ReadCredentialHashes',
      actions: ['dynamodb:GetItem'],
      resources: [props.ledgerTable.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['API_KEY#*', 'WEBHOOK_SECRET#*'] },
      },
    });
    add({
      sid: 'IdempotencyKeys',
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [props.dedupTable.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ingest-key#*', 'ingest-rate#*'] },
      },
    });
    add(tableKeyStatementProps(props.dataKeyArn));
    add({
      sid: 'PublishToTopics',
      actions: ['sns:Publish'],
      resources: [
        props.alertsTopic.topicArn,
        ...(props.costTopic ? [props.costTopic.topicArn] : []),
      ],
    });
    add({
      sid: 'UseMessagingKeyThroughSns',
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: [props.messagingKeyArn],
      conditions: { StringEquals: { 'kms:ViaService': `sns.${Aws.REGION}.amazonaws.com` } },
    });

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.api = new apigw.HttpApi(this, 'Api', {
      apiName: props.apiName,
      description: 'billing-dedup push endpoint',
      createDefaultStage: false,
    });
    const stage = new apigw.HttpStage(this, 'Stage', {
      httpApi: this.api,
      autoDeploy: true,
      throttle: {
        rateLimit: config.ratePerSecond ?? DEFAULT_PUSH_RATE_PER_SECOND,
        burstLimit: config.burst ?? DEFAULT_PUSH_BURST,
      },
    });
    const cfnStage = stage.node.defaultChild as apigw.CfnStage;
    cfnStage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        routeKey: '$context.routeKey',
        status: '$context.status',
        responseLength: '$context.responseLength',
        integrationError: '$context.integrationErrorMessage',
      }),
    };
    const integration = new HttpLambdaIntegration('Function', this.function.fn);
    const routes = [
      ...(config.pubsub ? ['/pubsub'] : []),
      ...((config.azureTenants ?? []).length > 0 ? ['/azure/{tenant}'] : []),
      ...(config.ingest ? ['/v1/events'] : []),
    ];
    for (const path of routes)
      this.api.addRoutes({ path, methods: [apigw.HttpMethod.POST], integration });
    if (config.iamCallers)
      [this.iamRoute] = this.api.addRoutes({
        path: IAM_EVENTS_PATH,
        methods: [apigw.HttpMethod.POST],
        integration,
        authorizer: new HttpIamAuthorizer(),
      });
    NagSuppressions.addResourceSuppressions(
      this.api,
      [
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'Every route is authenticated by the function before anything is read or published: the Google OIDC ' +
            'token (signature, issuer, audience, service account), the Azure webhook token or the ingest API key ' +
            '(both compared as SHA-256 hashes). Pub/Sub and Azure action groups cannot sign SigV4 requests; ' +
            'the route for AWS callers has IAM authorization.',
        },
      ],
      true,
    );

    this.refusedAuthAlarm = new cloudwatch.Alarm(this, 'RefusedAuth', {
      alarmName: props.alarmName,
      alarmDescription:
        'The push endpoint refused more authentications (401/403) than expected in 5 minutes: a misconfigured ' +
        'subscription or action group, a rotated key not yet deployed by the sender, or probing. The function log ' +
        'names the route and reason of each refusal (docs/push-endpoint.md "Refused requests").',
      metric: new cloudwatch.Metric({
        namespace: METRIC_NAMESPACE,
        metricName: REFUSED_AUTH_METRIC,
        dimensionsMap: { service: props.serviceName },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      threshold: config.refusedAuthAlarmPerFiveMinutes ?? DEFAULT_REFUSED_AUTH_ALARM,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.refusedAuthAlarm.addAlarmAction(new actions.SnsAction(props.opsTopic));
  }

  /** The route's execute-api ARN (any stage), for the caller's execute-api:Invoke grant. */
  get iamRouteArn(): string | undefined {
    return this.iamRoute?.routeArn;
  }

  get url(): string {
    return this.api.apiEndpoint;
  }
}

/** The push endpoint of a stateless stack when config `pushEndpoint` is set; its alarm joins the stack's. */
export function addPushEndpoint(
  scope: Construct,
  config: BillingDedupConfig,
  props: {
    alertsTopic: sns.ITopic;
    costTopic?: sns.ITopic;
    opsTopic: sns.ITopic;
    ledgerTable: dynamodb.ITable;
    dedupTable: dynamodb.ITable;
    dataKeyArn: string;
    messagingKeyArn: string;
    logRetention: logs.RetentionDays;
    logRemovalPolicy: RemovalPolicy;
    logLevel: string;
  },
): PushEndpoint | undefined {
  if (config.pushEndpoint === undefined) return undefined;
  const endpoint = new PushEndpoint(scope, 'PushEndpoint', {
    config: config.pushEndpoint,
    functionName: resourceName(config.stage, 'push-endpoint'),
    serviceName: serviceName(config.stage, 'push-endpoint'),
    apiName: resourceName(config.stage, 'push'),
    alarmName: resourceName(config.stage, 'push-auth-refused'),
    costTopicFifo: config.costStreamKind === 'fifo',
    dedupTtl: Duration.days(config.dedupTtlDays),
    ...props,
  });
  new CfnOutput(scope, 'PushEndpointUrl', {
    value: endpoint.url,
    description:
      'push endpoint base URL: /pubsub, /azure/<tenant>?token=…, /v1/events, /v1/iam/events',
  });
  if (endpoint.iamRouteArn !== undefined)
    new CfnOutput(scope, PUSH_IAM_ROUTE_ARN_OUTPUT, {
      value: endpoint.iamRouteArn,
      description:
        'execute-api ARN of POST /v1/iam/events: grant a bound role execute-api:Invoke on it in its own account',
    });
  return endpoint;
}
