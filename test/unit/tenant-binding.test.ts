import { randomUUID } from 'node:crypto';
import {
  parseTenantBindingsJson,
  parseTenants,
  tenantTopicArn,
  type TenantBindings,
} from '../../contract/tenant-bindings';
import { acceptedCounts, acceptedScopesOf } from '../../lambda/adapters/telemetry';
import { ledgerLayout } from '../../lambda/adapters/table-layout';
import { parseCharge } from '../../lambda/core/charge';
import { RecordError } from '../../lambda/core/errors';
import { ArchivedTenant, TenantRouter } from '../../lambda/core/tenant-binding';
import { costEvent } from '../support/cost-events';
import { sqsRecord } from '../support/sqs-events';

const PATTERN = 'arn:aws:sns:us-east-1:123456789012:billing-dedup-dev-cost-events-{tenant}.fifo';
const TRUSTED = 'arn:aws:sns:us-east-1:123456789012:billing-dedup-dev-cost-events.fifo';
const bindings: TenantBindings = {
  topicArnPattern: PATTERN,
  trustedTopicArn: TRUSTED,
  tenants: { acme: { sources: ['aws', 'gcp'] }, globex: {} },
};
const router = new TenantRouter(bindings);
const layout = ledgerLayout();
const topicOf = (tenant: string) => tenantTopicArn(bindings, tenant);

/** What SQS holds when `topicArn` delivers `message` without raw delivery. */
const delivered = (topicArn: string, message: unknown, attributes: Record<string, string> = {}) =>
  sqsRecord(
    JSON.stringify({
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: topicArn,
      Message: JSON.stringify(message),
      MessageAttributes: Object.fromEntries(
        Object.entries(attributes).map(([name, value]) => [name, { Type: 'String', Value: value }]),
      ),
    }),
  );

const parse = (record: ReturnType<typeof sqsRecord>, tenants = router) =>
  parseCharge(layout, record, 'envelope', tenants);

const rejection = (run: () => unknown): { code: string; field: string; reason: string } => {
  try {
    run();
  } catch (error) {
    if (error instanceof RecordError)
      return { code: error.code, field: error.field, reason: error.reason };
    throw error;
  }
  throw new Error('expected a rejection');
};

const withoutTenant = (input: Parameters<typeof costEvent>[0]) => {
  const { tenant: _dropped, ...rest } = costEvent(input);
  return rest;
};

describe('tenant binding at ingest', () => {
  it('books a message that names no tenant to the tenant of its topic', () => {
    const charge = parse(
      delivered(topicOf('acme'), withoutTenant({ eventId: 'e-1', amount: '2' })),
    );
    expect(charge.event.tenant).toBe('acme');
    expect(charge.ref.pk).toContain('TENANT#acme#');
  });

  it('gives a message without a tenant on A’s topic the keys and hash of the same message naming A', () => {
    const bound = parse(delivered(topicOf('acme'), withoutTenant({ eventId: 'e-2', amount: '2' })));
    const named = parse(
      delivered(TRUSTED, costEvent({ tenant: 'acme', eventId: 'e-2', amount: '2' })),
    );
    expect(bound.contentHash).toBe(named.contentHash);
    expect(bound.ref).toEqual(named.ref);
  });

  it('rejects a body naming another tenant as tenant-mismatch', () => {
    const forged = delivered(
      topicOf('acme'),
      costEvent({ tenant: 'globex', eventId: 'e-3', amount: '9' }),
    );
    expect(rejection(() => parse(forged))).toEqual({
      code: 'tenant-mismatch',
      field: 'tenant',
      reason: 'the message claims tenant "globex" but was published to the topic of tenant "acme"',
    });
  });

  it('rejects a tenant attribute naming another tenant as tenant-mismatch', () => {
    const forged = delivered(topicOf('acme'), withoutTenant({ eventId: 'e-4', amount: '9' }), {
      tenant: 'globex',
    });
    expect(rejection(() => parse(forged))).toMatchObject({
      code: 'tenant-mismatch',
      field: 'attributes.tenant',
    });
  });

  it('rejects a tenant field in a format that never reads one (FOCUS) when it names another tenant', () => {
    const focus = {
      ProviderName: 'AWS',
      SubAccountId: '200000000011',
      ChargePeriodStart: '2026-11-03T00:00:00Z',
      ChargeCategory: 'Usage',
      BilledCost: '1.5',
      BillingCurrency: 'USD',
      tenant: 'globex',
    };
    expect(rejection(() => parse(delivered(topicOf('acme'), focus)))).toMatchObject({
      code: 'tenant-mismatch',
    });
  });

  it('accepts a message that names its own tenant, in any case', () => {
    const charge = parse(
      delivered(topicOf('acme'), costEvent({ tenant: ' ACME ', eventId: 'e-5', amount: '1' })),
    );
    expect(charge.event.tenant).toBe('acme');
  });

  it('rejects a source outside the tenant’s sources as source-mismatch; any source when none are configured', () => {
    const azure = (tenant: string) =>
      delivered(
        topicOf(tenant),
        withoutTenant({ source: 'azure', eventId: `e-6-${tenant}`, amount: '1' }),
      );
    expect(rejection(() => parse(azure('acme')))).toMatchObject({
      code: 'source-mismatch',
      field: 'source',
    });
    expect(parse(azure('globex')).event).toMatchObject({ tenant: 'globex', source: 'azure' });
  });

  it('leaves the tenant to the message on the trusted topic', () => {
    const charge = parse(
      delivered(TRUSTED, costEvent({ tenant: 'initech', eventId: 'e-7', amount: '1' })),
    );
    expect(charge.event.tenant).toBe('initech');
  });

  it('refuses a delivery from any other topic, or from none, as tenant-mismatch on TopicArn', () => {
    const other = delivered(
      'arn:aws:sns:us-east-1:123456789012:billing-dedup-dev-cost-events-intruder.fifo',
      withoutTenant({ eventId: 'e-8', amount: '1' }),
    );
    expect(rejection(() => parse(other))).toMatchObject({
      code: 'tenant-mismatch',
      field: 'TopicArn',
    });
    const noTopic = sqsRecord(
      JSON.stringify({
        Type: 'Notification',
        MessageId: 'm',
        Message: JSON.stringify(costEvent({ amount: '1' })),
      }),
    );
    expect(rejection(() => parse(noTopic))).toMatchObject({
      code: 'tenant-mismatch',
      field: 'TopicArn',
    });
  });

  it('without bindings every message is trusted, as before', () => {
    const charge = parse(
      delivered(topicOf('acme'), costEvent({ tenant: 'globex', eventId: 'e-9', amount: '1' })),
      new TenantRouter(undefined),
    );
    expect(charge.event.tenant).toBe('globex');
  });
});

describe('tenant configuration', () => {
  const principal = (p: string) => (/^\d{12}$/.test(p) ? undefined : 'is not an account ID');

  it('accepts ids, publishers, sources and a ceiling', () => {
    expect(
      parseTenants(
        [{ id: 'acme', publishers: ['111111111111'], sources: ['aws'], maxEventsPerMinute: 600 }],
        principal,
      ),
    ).toEqual([
      { id: 'acme', publishers: ['111111111111'], sources: ['aws'], maxEventsPerMinute: 600 },
    ]);
  });

  it.each([
    [
      [{ id: 'Acme', publishers: ['111111111111'] }],
      /tenants\[0\]\.id "Acme" must be a tenant slug/,
    ],
    [[{ id: 'acme', publishers: [] }], /tenants\[0\]\.publishers must be a non-empty list/],
    [
      [{ id: 'acme', publishers: ['someone'] }],
      /tenants\[0\]\.publishers "someone" is not an account ID/,
    ],
    [
      [{ id: 'acme', publishers: ['111111111111'], maxEventsPerMinute: 0 }],
      /maxEventsPerMinute must be a whole number/,
    ],
    [
      [{ id: 'acme', publishers: ['111111111111'], topic: 'x' }],
      /tenants\[0\]\.topic is not a known field/,
    ],
    [
      [
        { id: 'acme', publishers: ['111111111111'] },
        { id: 'acme', publishers: ['222222222222'] },
      ],
      /tenants\[1\]\.id "acme" is already tenants\[0\]\.id/,
    ],
  ])('refuses %j naming the entry and the fix', (value, message) => {
    expect(() => parseTenants(value, principal)).toThrow(message);
  });

  it('reads back what the stack writes for the consumer', () => {
    expect(parseTenantBindingsJson(JSON.stringify(bindings), 'TENANT_BINDINGS')).toEqual(bindings);
    expect(parseTenantBindingsJson(undefined, 'TENANT_BINDINGS')).toBeUndefined();
    expect(() => parseTenantBindingsJson('{"tenants":{}}', 'TENANT_BINDINGS')).toThrow(
      /TENANT_BINDINGS must be/,
    );
  });
});

describe('accepted-event metric dimensions', () => {
  it('count configured tenants and sources by name and everything else as other', () => {
    const scope = (tenant: string, source: string) => ({
      messageId: randomUUID(),
      outcome: 'applied' as const,
      scope: { tenant, source },
    });
    const counts = acceptedCounts(
      [
        scope('acme', 'aws'),
        scope('acme', 'aws'),
        scope('acme', 'made-up-1'),
        scope('made-up-tenant', 'gcp'),
        { messageId: 'x', outcome: 'rejected' },
      ],
      acceptedScopesOf(bindings),
    );
    expect(counts).toEqual([
      { tenant: 'acme', source: 'aws', count: 2 },
      { tenant: 'acme', source: 'other', count: 1 },
      { tenant: 'other', source: 'gcp', count: 1 },
    ]);
  });
});

describe('the binding of a rebuild from a tenant archive', () => {
  const raw = (message: unknown) => sqsRecord(message);
  const archived = new ArchivedTenant('acme');

  it('books a message its tenant topic delivered without a tenant as it was live', () => {
    const live = parse(
      delivered(topicOf('acme'), withoutTenant({ eventId: 'e-9', amount: '7.25' })),
    );
    const rebuilt = parseCharge(
      layout,
      raw(withoutTenant({ eventId: 'e-9', amount: '7.25' })),
      'raw',
      archived,
    );
    expect(rebuilt.event.tenant).toBe('acme');
    expect(rebuilt.contentHash).toBe(live.contentHash);
    expect(rebuilt.ref).toEqual(live.ref);
  });

  it('still refuses a message naming another tenant', () => {
    expect(
      rejection(() =>
        parseCharge(
          layout,
          raw(costEvent({ tenant: 'globex', eventId: 'e', amount: '1' })),
          'raw',
          archived,
        ),
      ).code,
    ).toBe('tenant-mismatch');
  });
});
