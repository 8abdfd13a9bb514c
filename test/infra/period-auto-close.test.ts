import { Aspects, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { SynthesisMessage } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { resourcesOfType, synth } from './helpers';

const nagFindings = (stack: Stack): string[] =>
  (
    stack.node.root as unknown as {
      synth(): { getStackArtifact(id: string): { messages: SynthesisMessage[] } };
    }
  )
    .synth()
    .getStackArtifact(stack.artifactId)
    .messages.filter(
      (m) =>
        (m.level === 'error' || m.level === 'warning') &&
        /AwsSolutions-/.test(String(m.entry.data)),
    )
    .map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);

describe('period auto-close (config autoCloseAfterDays)', () => {
  it('is off by default: no schedule, no function', () => {
    const { statelessTemplate } = synth();
    expect(
      Object.values(resourcesOfType(statelessTemplate, 'AWS::Events::Rule')).filter((rule) =>
        String(rule.Properties?.Description).includes('auto-close'),
      ),
    ).toEqual([]);
    expect(
      Object.values(resourcesOfType(statelessTemplate, 'AWS::Lambda::Function')).filter((fn) =>
        String(fn.Properties?.FunctionName).endsWith('period-auto-close'),
      ),
    ).toEqual([]);
  });

  it('set: a daily schedule invokes a function told the delay, with only the table actions it needs', () => {
    const { statelessTemplate: t } = synth({ autoCloseAfterDays: 5 });
    t.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(15 3 * * ? *)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 21600 },
        }),
      ],
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'billing-dedup-dev-period-auto-close',
      Environment: {
        Variables: Match.objectLike({
          AUTO_CLOSE_AFTER_DAYS: '5',
          LEDGER_TABLE_NAME: Match.anyValue(),
        }),
      },
    });
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'FindAndClosePeriods',
            Action: [
              'dynamodb:Scan',
              'dynamodb:Query',
              'dynamodb:GetItem',
              'dynamodb:BatchGetItem',
              'dynamodb:UpdateItem',
              'dynamodb:PutItem',
              'dynamodb:ConditionCheckItem',
            ],
            Resource: Match.anyValue(),
          }),
        ]),
      },
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'billing-dedup-dev-period-auto-close-errors',
      MetricName: 'Errors',
      AlarmActions: [Match.anyValue()],
    });
  });

  it.each([0, 91, 2.5])('refuses autoCloseAfterDays=%p at synth', (days) => {
    expect(() => synth({ autoCloseAfterDays: days })).toThrow(/autoCloseAfterDays/);
  });

  it('stays cdk-nag clean', () => {
    const s = synth({ autoCloseAfterDays: 5 }, { nag: true });
    expect(Aspects.of(s.app).all.some((a) => a instanceof AwsSolutionsChecks)).toBe(true);
    expect(nagFindings(s.stateless)).toEqual([]);
  });
});
