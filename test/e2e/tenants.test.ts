/**
 * Tenant-bound publishing end to end (docs/threat-model.md): the synthesized stack with tenant topics,
 * the local SNS delivering envelopes through the templates' subscriptions, the real cost consumer.
 */
import { COST_STREAM } from '../../contract/streams';
import { REJECTION_ATTRIBUTES } from '../../lambda/adapters/sqs-dead-letters';
import { NO_FAULTS } from '../../local/runtime/faults';
import { runLocal } from '../../local/phases/run-local';
import type { Sample, SampleMessage } from '../../local/scenarios/sample';

const quiet = { outputsFile: false as const, handlerLogFile: false as const };

const charge = (eventId: string, accountId: string, amount: string, extra = {}) => ({
  source: 'aws',
  eventId,
  accountId,
  chargePeriodStart: '2026-11-03T10:00:00Z',
  chargeCategory: 'usage',
  amount,
  currency: 'USD',
  ...extra,
});

const message = (body: object, extra: Partial<SampleMessage> = {}): SampleMessage => ({
  topic: COST_STREAM,
  message: JSON.stringify(body),
  ...extra,
});

describe('tenant topics (local run)', () => {
  it('a message for B through A’s topic never reaches B’s ledger; one without a tenant lands on A', async () => {
    const sample: Sample = {
      messages: [
        // Through the trusted shared topic: globex's only charge.
        message(charge('g-1', '300000000021', '10', { tenant: 'globex' })),
        // Through acme's topic: no tenant → acme.
        message(charge('a-1', '200000000011', '2.5'), { tenantTopic: 'acme' }),
        // Through acme's topic, claiming globex (body, then attribute): never booked.
        message(charge('forged-1', '300000000021', '1000', { tenant: 'globex' }), {
          tenantTopic: 'acme',
        }),
        message(charge('forged-2', '300000000021', '2000'), {
          tenantTopic: 'acme',
          attributes: { tenant: 'globex' },
        }),
      ],
      truth: {
        ledger: [
          {
            tenant: 'acme',
            accountId: '200000000011',
            period: '2026-11',
            currency: 'USD',
            total: '2.5',
            charges: 1,
          },
          {
            tenant: 'globex',
            accountId: '300000000021',
            period: '2026-11',
            currency: 'USD',
            total: '10',
            charges: 1,
          },
        ],
        notificationKeys: [],
        deadLetters: { [COST_STREAM]: 2, 'budget-alerts': 0 },
        conflicts: [],
      },
    };
    const result = await runLocal({ ...quiet, sample, faults: NO_FAULTS, acquisitions: false });
    expect(result.report.verdict).toMatchObject({ status: 'PASS' });
    expect(
      result.report.ledger.map(({ tenant, accountId, total }) => ({ tenant, accountId, total })),
    ).toEqual([
      { tenant: 'acme', accountId: '200000000011', total: '2.5' },
      { tenant: 'globex', accountId: '300000000021', total: '10' },
    ]);
    const dead = result.deadLetters[COST_STREAM] ?? [];
    expect(dead.map((letter) => letter.attributes[REJECTION_ATTRIBUTES.code])).toEqual([
      'tenant-mismatch',
      'tenant-mismatch',
    ]);
    expect(dead.map((letter) => letter.attributes[REJECTION_ATTRIBUTES.field]).sort()).toEqual([
      'attributes.tenant',
      'tenant',
    ]);
  }, 300_000);
});
