/** The sample's real-world alert shapes: each logical alert's copies share one key, by every route. */
import { parseAlert } from '../../../lambda/core/alert-processor';
import { anomalyEvents } from '../../../local/scenarios/anomaly-events';
import { gcpAnomalies } from '../../../local/scenarios/anomalies';
import { awsDailyBudgetNotifications } from '../../../local/scenarios/aws-budgets';
import { SampleDraft } from '../../../local/scenarios/draft';
import type { SampleMessage } from '../../../local/scenarios/sample';
import { TENANTS } from '../../../local/scenarios/tenants';

const parsed = (message: SampleMessage) =>
  parseAlert({
    messageId: 'm',
    body: message.message,
    messageAttributes: Object.fromEntries(
      Object.entries(message.attributes ?? {}).map(([name, value]) => [
        name,
        { stringValue: value, dataType: 'String' },
      ]),
    ),
  });

/** Keys of the copies of each logical alert, in the order the notes group them. */
const keysByAlert = (messages: SampleMessage[], truthKeys: string[]): Map<string, Set<string>> => {
  const byKey = new Map<string, Set<string>>();
  for (const message of messages) {
    const { key, alert } = parsed(message);
    const formats = byKey.get(key) ?? new Set<string>();
    formats.add(alert.format);
    byKey.set(key, formats);
  }
  expect([...byKey.keys()].sort()).toEqual([...truthKeys].sort());
  return byKey;
};

describe('alert scenarios of the sample', () => {
  it('each anomaly arrives by SNS and by EventBridge, without attributes, as one alert', () => {
    for (const seed of [1, 2, 3, 42]) {
      const draft = new SampleDraft(seed);
      anomalyEvents(draft);
      const { messages, truth } = draft.build();
      expect(messages.every((m) => m.attributes === undefined)).toBe(true);
      const byKey = keysByAlert(messages, truth.notificationKeys);
      expect(byKey.size).toBe(2);
      for (const formats of byKey.values())
        expect([...formats].sort()).toEqual(['cost-anomaly', 'cost-anomaly-event']);
    }
  });

  it('a daily budget crossed on two days is two alerts; its same-day repeats are not', () => {
    const draft = new SampleDraft(5);
    awsDailyBudgetNotifications(draft, TENANTS[0], '2026-11', TENANTS[0].awsAccounts[0]);
    const { messages, truth } = draft.build();
    expect(truth.notificationKeys).toHaveLength(2);
    expect(new Set(messages.map((m) => parsed(m).alert.period))).toEqual(
      new Set(['2026-11-13', '2026-11-14']),
    );
    keysByAlert(messages, truth.notificationKeys);
  });

  it('a GCP anomaly re-sent in any wrapping is one alert', () => {
    const draft = new SampleDraft(8);
    for (const spec of TENANTS) gcpAnomalies(draft, spec);
    const { messages, truth } = draft.build();
    expect(truth.notificationKeys).toHaveLength(TENANTS.length);
    keysByAlert(messages, truth.notificationKeys);
  });
});
