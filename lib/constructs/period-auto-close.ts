import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ENV, consumerEnvironment } from '../../contract/environment';
import { ConsumerFunction } from './consumer-function';
import { allowTableKey } from '../streams/table-grants';

export interface PeriodAutoCloseProps {
  readonly functionName: string;
  readonly serviceName: string;
  readonly ledgerTable: dynamodb.ITable;
  readonly dataKeyArn: string;
  /** Days after a period ends before it is closed (config `autoCloseAfterDays`). */
  readonly afterDays: number;
  readonly logRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly logLevel: string;
  readonly opsTopic: sns.ITopic;
  readonly alarmName: string;
}

/**
 * The daily auto-close: an EventBridge schedule (03:15 UTC) invokes a function that closes every billing
 * period `afterDays` days after it ended (lambda/handlers/period-auto-close.ts). Its role may scan the
 * ledger table and write the close transaction's items, nothing else; an alarm tells the ops topic when
 * a run fails (EventBridge retries it twice; every close is idempotent).
 */
export class PeriodAutoClose extends Construct {
  readonly function: ConsumerFunction;
  readonly rule: events.Rule;
  readonly alarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: PeriodAutoCloseProps) {
    super(scope, id);
    this.function = new ConsumerFunction(this, 'Function', {
      functionName: props.functionName,
      description: `billing-dedup: closes billing periods ${props.afterDays} day(s) after they end`,
      entry: 'lambda/handlers/period-auto-close.ts',
      timeout: Duration.minutes(15),
      memorySize: 512,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      environment: {
        ...consumerEnvironment({
          ledgerTableName: props.ledgerTable.tableName,
          autoCloseAfterDays: props.afterDays,
          serviceName: props.serviceName,
          logLevel: props.logLevel,
        }),
      },
    });
    const role = this.function.role;
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'FindAndClosePeriods',
        // Scan finds the periods; Query, GetItem and BatchGetItem read a period's statement, PERIOD item
        // and export pointers; the close transaction updates shards and puts PERIOD and audit items,
        // with a condition check on each pinned export pointer.
        actions: [
          'dynamodb:Scan',
          'dynamodb:Query',
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:UpdateItem',
          'dynamodb:PutItem',
          'dynamodb:ConditionCheckItem',
        ],
        resources: [props.ledgerTable.tableArn],
      }),
    );
    allowTableKey(role, props.dataKeyArn);

    this.rule = new events.Rule(this, 'Schedule', {
      description: `billing-dedup: daily auto-close of billing periods (${ENV.autoCloseAfterDays}=${props.afterDays})`,
      schedule: events.Schedule.cron({ minute: '15', hour: '3' }),
      targets: [
        new targets.LambdaFunction(this.function.fn, {
          retryAttempts: 2,
          maxEventAge: Duration.hours(6),
        }),
      ],
    });

    this.alarm = new cloudwatch.Alarm(this, 'Errors', {
      alarmName: props.alarmName,
      alarmDescription:
        'Billing period auto-close failed: some periods that are due were not closed. Read the function log ' +
        '("period not closed"), then close them with `billing-dedup period close` or wait for the next daily run.',
      metric: this.function.fn.metricErrors({
        period: Duration.hours(1),
        statistic: cloudwatch.Stats.SUM,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarm.addAlarmAction(new actions.SnsAction(props.opsTopic));
    this.alarm.addOkAction(new actions.SnsAction(props.opsTopic));
  }
}
