import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** An alarm as soon as a dead-letter queue holds a message (1-minute maximum), ALARM and OK to the ops topic. */
export function dlqNotEmptyAlarm(
  scope: Construct,
  id: string,
  props: {
    readonly queue: sqs.IQueue;
    readonly alarmName: string;
    readonly alarmDescription: string;
    readonly opsTopic: sns.ITopic;
    readonly datapointsToAlarm?: number;
  },
): cloudwatch.Alarm {
  const alarm = new cloudwatch.Alarm(scope, id, {
    alarmName: props.alarmName,
    alarmDescription: props.alarmDescription,
    metric: props.queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: cloudwatch.Stats.MAXIMUM,
    }),
    threshold: 1,
    evaluationPeriods: 1,
    ...(props.datapointsToAlarm === undefined
      ? {}
      : { datapointsToAlarm: props.datapointsToAlarm }),
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(new actions.SnsAction(props.opsTopic));
  alarm.addOkAction(new actions.SnsAction(props.opsTopic));
  return alarm;
}
