import type { ArchivedRecord } from '../../lambda/core/archive';
import { archiveObjectsOf, archivePrefixOf } from '../../lambda/core/archive';
import {
  ArchiveFormatError,
  messagesOf,
  parseArchiveLines,
  publishedFormOf,
  rebuildSteps,
  selectCostEvents,
} from '../../lambda/core/archive-read';
import type { Outcome } from '../../lambda/core/outcomes';
import { snsEnvelope } from '../support/sqs-events';

const SENT = Date.parse('2026-11-03T10:00:00.000Z');

const line = (
  messageId: string,
  outcome: Outcome,
  options: { sentOffset?: number; receivedAt?: string; hash?: string; body?: string } = {},
): ArchivedRecord => ({
  messageId,
  receivedAt: options.receivedAt ?? '2026-11-03T10:00:05.000Z',
  attributes: { SentTimestamp: String(SENT + (options.sentOffset ?? 0)) },
  messageAttributes: { tenant: { stringValue: 'acme', dataType: 'String' } },
  body: options.body ?? `{"eventId":"${messageId}","amount":"1.10"}`,
  outcome,
  ...(options.hash === undefined ? {} : { hash: options.hash }),
});

const text = (records: ArchivedRecord[]): string =>
  records.map((record) => `${JSON.stringify(record)}\n`).join('');

describe('reading archived lines', () => {
  it('returns each line as the consumer wrote it, blank lines ignored', () => {
    const records = [line('m1', 'applied', { hash: 'h1' }), line('m2', 'duplicate')];
    expect(parseArchiveLines(`${text(records)}\n`, 'k')).toEqual(records);
  });

  it.each([
    ['not json', /^obj line 2: not JSON$/],
    ['[1]', /^obj line 2: not a JSON object$/],
    [JSON.stringify({ ...line('m', 'applied'), messageId: '' }), /"messageId" must be/],
    [JSON.stringify({ ...line('m', 'applied'), outcome: 'booked' }), /"outcome" "booked" is not/],
    [JSON.stringify({ ...line('m', 'applied'), attributes: 'x' }), /"attributes" must be/],
    [JSON.stringify({ ...line('m', 'applied'), hash: 7 }), /"hash" must be a string/],
  ])('refuses a bad line naming the object and line: %s', (bad, message) => {
    const run = () => parseArchiveLines(`${text([line('ok', 'applied')])}${bad}\n`, 'obj');
    expect(run).toThrow(ArchiveFormatError);
    expect(run).toThrow(message);
  });
});

describe('messages of the archive', () => {
  it('gathers the copies of each message in receive order, messages in send order', () => {
    const messages = messagesOf([
      line('late', 'applied', { sentOffset: 5000, hash: 'h-late' }),
      line('m1', 'duplicate', { receivedAt: '2026-11-03T10:05:00.000Z', hash: 'h1' }),
      line('m1', 'failed', { receivedAt: '2026-11-03T10:00:01.000Z', hash: 'h1' }),
      line('m0', 'applied', { hash: 'h0' }),
    ]);
    expect(messages.map((message) => message.messageId)).toEqual(['m0', 'm1', 'late']);
    expect(messages[1].copies).toEqual([
      { receivedAt: '2026-11-03T10:00:01.000Z', outcome: 'failed', hash: 'h1' },
      { receivedAt: '2026-11-03T10:05:00.000Z', outcome: 'duplicate', hash: 'h1' },
    ]);
  });
});

describe('cost events to replay', () => {
  it('once per charge content, in send order; dead-lettered and never decided ones counted, not kept', () => {
    const selection = selectCostEvents(
      messagesOf([
        line('restated', 'restated', { sentOffset: 30, hash: 'h-v2' }),
        line('original', 'applied', { sentOffset: 10, hash: 'h-v1' }),
        line('producer-retry', 'duplicate', { sentOffset: 20, hash: 'h-v1' }),
        line('poison', 'rejected', { sentOffset: 1 }),
        line('conflicting', 'conflict', { sentOffset: 2, hash: 'h-x' }),
        line('retried', 'failed', { sentOffset: 40 }),
        line('retried', 'duplicate', {
          sentOffset: 40,
          receivedAt: '2026-11-03T11:00:00.000Z',
          hash: 'h-r',
        }),
        line('only-failed', 'failed', { sentOffset: 50 }),
      ]),
    );
    expect(selection.events.map((message) => message.messageId)).toEqual([
      'original',
      'restated',
      'retried',
    ]);
    expect(selection.sameContent).toBe(1);
    expect(selection.notBooked).toBe(3);
  });

  it('keeps a line item restated back to an earlier content: its version makes it another message', () => {
    // The content hash leaves the version out: v3 (10) has v1's hash; live, v3 restated v2 (20) back to 10.
    const item = (version: number, amount: string) =>
      `{"tenant":"acme","source":"aws","accountId":"200000000011","lineItemId":"li-back","version":${version},` +
      `"chargePeriodStart":"2026-11-07T00:00:00Z","chargeCategory":"usage","amount":"${amount}","currency":"USD"}`;
    const selection = selectCostEvents(
      messagesOf([
        line('v1', 'applied', { sentOffset: 1, hash: 'h-10', body: item(1, '10') }),
        line('v2', 'restated', { sentOffset: 2, hash: 'h-20', body: item(2, '20') }),
        line('v3', 'restated', { sentOffset: 3, hash: 'h-10', body: item(3, '10') }),
        line('v3-retry', 'duplicate', { sentOffset: 4, hash: 'h-10', body: item(3, '10') }),
      ]),
    );
    expect(selection.events.map((message) => message.messageId)).toEqual(['v1', 'v2', 'v3']);
    expect(selection.sameContent).toBe(1);
  });

  it('of two messages with one content and one send time, keeps the one the live ledger decided first', () => {
    // A producer retry sent in the same millisecond: send order cannot tell them apart. The late copy
    // sorts first by message id; replayed, it would land after a close the live ledger booked before.
    const selection = selectCostEvents(
      messagesOf([
        line('b-first', 'applied', { receivedAt: '2026-11-03T10:00:05.000Z', hash: 'h' }),
        line('a-late', 'duplicate', { receivedAt: '2026-11-03T12:00:00.000Z', hash: 'h' }),
      ]),
    );
    expect(selection.events.map((message) => message.messageId)).toEqual(['b-first']);
    expect(selection.sameContent).toBe(1);
  });

  it('gives the same selection whatever order the objects were read in', () => {
    const records = [
      line('a', 'applied', { sentOffset: 5, hash: 'h' }),
      line('b', 'applied', { sentOffset: 5, hash: 'h' }),
      line('c', 'applied', { sentOffset: 1, hash: 'hc' }),
    ];
    const ids = (input: ArchivedRecord[]) =>
      selectCostEvents(messagesOf(input)).events.map((message) => message.messageId);
    expect(ids(records)).toEqual(['c', 'a']);
    expect(ids([...records].reverse())).toEqual(['c', 'a']);
  });
});

describe('archive prefix of a tenant period', () => {
  it('is the prefix the consumers write that partition under', () => {
    const [object] = archiveObjectsOf(
      'cost-events',
      [{ messageId: 'm', body: '{}', attributes: { SentTimestamp: String(SENT) } }],
      [{ messageId: 'm', outcome: 'applied', evidence: { tenant: 'acme', period: '2026-11' } }],
      new Date(SENT),
    );
    expect(archivePrefixOf('cost-events', 'acme', '2026-11')).toBe(
      'cost-events/tenant=acme/period=2026-11/',
    );
    expect(object.key.startsWith(archivePrefixOf('cost-events', 'acme', '2026-11'))).toBe(true);
  });
});

describe('the published form of an archived record', () => {
  it('raw delivery: the body and the string attributes', () => {
    expect(publishedFormOf(line('m', 'applied', { body: '{"a":1}' }))).toEqual({
      body: '{"a":1}',
      attributes: { tenant: 'acme' },
    });
  });

  it('an SNS envelope: its message and its attributes', () => {
    const record = line('m', 'applied', {
      body: snsEnvelope({ amount: '1.10' }, { tenant: 'globex' }),
    });
    expect(publishedFormOf(record)).toEqual({
      body: '{"amount":"1.10"}',
      attributes: { tenant: 'globex' },
    });
  });
});

describe('rebuild steps', () => {
  const at = (messageId: string, ...copies: [Outcome, string][]) =>
    messagesOf(copies.map(([outcome, receivedAt]) => line(messageId, outcome, { receivedAt })))[0];

  it('books in the order the live consumer decided, each live close before the first event decided after it', () => {
    const steps = rebuildSteps(
      [
        at('late', ['applied', '2026-12-01T00:00:00.000Z']),
        at('early', ['applied', '2026-11-01T00:00:00.000Z']),
        // Failed first, decided after the close: booked after it.
        at(
          'retried',
          ['failed', '2026-11-14T00:00:00.000Z'],
          ['applied', '2026-11-16T00:00:00.000Z'],
        ),
        at('mid', ['applied', '2026-11-10T00:00:00.000Z']),
      ],
      [
        { key: 'close-2026-10', closedAt: '2026-11-15T00:00:00.500Z' },
        { key: 'close-never-followed', closedAt: '2026-12-24T00:00:00.000Z' },
      ],
      2,
    );
    expect(
      steps.map((step) =>
        step.kind === 'book' ? step.events.map((e) => e.messageId).join('+') : step.key,
      ),
    ).toEqual(['early+mid', 'close-2026-10', 'retried+late', 'close-never-followed']);
  });

  it('places each live export switch among the events and closes by its switch time, an export before a close at the same instant', () => {
    const steps = rebuildSteps(
      [
        at('before', ['applied', '2026-11-01T00:00:00.000Z']),
        at('after', ['applied', '2026-12-03T00:00:00.000Z']),
      ],
      [{ key: 'close', closedAt: '2026-12-02T00:00:00.000Z' }],
      10,
      [
        { key: 'export-after-close', switchedAt: '2026-12-04T00:00:00.000Z' },
        { key: 'export-at-close', switchedAt: '2026-12-02T00:00:00.000Z' },
        { key: 'export-1', switchedAt: '2026-11-20T00:00:00.000Z' },
      ],
    );
    expect(
      steps.map((step) =>
        step.kind === 'book'
          ? step.events.map((e) => e.messageId).join('+')
          : `${step.kind}:${step.key}`,
      ),
    ).toEqual([
      'before',
      'export:export-1',
      'export:export-at-close',
      'close:close',
      'after',
      'export:export-after-close',
    ]);
  });
});
