import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { outcomeMetric } from './consumer-alarms';
import { QueueConsumer } from './queue-consumer';
import { OUTCOMES } from '../../lambda/core/outcomes';

export interface OpsDashboardProps {
  readonly dashboardName: string;
  readonly pipelines: readonly QueueConsumer[];
  readonly alarms: readonly cloudwatch.IAlarm[];
}

/** One dashboard per stage: alarm status, then one row block per stream. */
export class OpsDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OpsDashboardProps) {
    super(scope, id);
    const period = Duration.minutes(5);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(24),
    });

    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: [...props.alarms],
        width: 24,
        height: 4,
      }),
    );

    for (const p of props.pipelines) {
      const fn = p.consumer.fn;
      this.dashboard.addWidgets(
        new cloudwatch.TextWidget({
          markdown: `## ${p.streamName} (${p.fifo ? 'FIFO' : 'standard'}) → \`${p.serviceName}\``,
          width: 24,
          height: 1,
        }),
      );
      this.dashboard.addWidgets(
        new cloudwatch.GraphWidget({
          title: `${p.streamName}: queue`,
          left: [
            p.queue.metricApproximateNumberOfMessagesVisible({ period, label: 'visible' }),
            p.queue.metricApproximateNumberOfMessagesNotVisible({ period, label: 'in flight' }),
          ],
          right: [p.queue.metricApproximateAgeOfOldestMessage({ period, label: 'oldest age (s)' })],
          width: 8,
        }),
        new cloudwatch.GraphWidget({
          title: `${p.streamName}: dead letters`,
          left: [
            p.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
              period,
              label: 'DLQ visible',
            }),
          ],
          width: 4,
        }),
        new cloudwatch.GraphWidget({
          title: `${p.streamName}: function`,
          left: [
            fn.metricInvocations({ period, label: 'invocations' }),
            fn.metricErrors({ period, label: 'errors' }),
            fn.metricThrottles({ period, label: 'throttles' }),
          ],
          right: [
            fn.metricDuration({ period, statistic: cloudwatch.Stats.p(99), label: 'p99 duration' }),
          ],
          width: 6,
        }),
        new cloudwatch.GraphWidget({
          title: `${p.streamName}: outcomes`,
          left: OUTCOMES.map((o) => outcomeMetric(p.serviceName, o, period).with({ label: o })),
          stacked: true,
          width: 6,
        }),
      );
    }
  }
}
