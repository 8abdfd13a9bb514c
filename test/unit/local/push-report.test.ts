import {
  pushCheck,
  pushSummaryLines,
  summarizePushRun,
  type PushRequestOutcome,
} from '../../../local/report/push-report';

const outcome = (o: Partial<PushRequestOutcome> & Pick<PushRequestOutcome, 'status'>) =>
  ({
    name: 'r',
    route: 'ingest',
    throttled: 0,
    serverErrors: 0,
    expected: o.status,
    ok: true,
    ...o,
  }) as PushRequestOutcome;

describe('push report', () => {
  const outcomes = [
    outcome({ route: 'pubsub', status: 200 }),
    outcome({ route: 'pubsub', status: 401, reason: 'expired' }),
    outcome({ route: 'pubsub', status: 401, reason: 'bad-signature' }),
    outcome({ status: 202, throttled: 2 }),
    outcome({ status: 200, replayed: true }),
    outcome({ status: 409, reason: 'key-reused' }),
    outcome({ status: 403, reason: 'tenant-mismatch' }),
  ];

  it('counts accepted, replayed, conflicts, refused by reason and 429s per route', () => {
    const report = summarizePushRun(outcomes);
    expect(report.byRoute).toEqual({
      pubsub: {
        accepted: 1,
        replayed: 0,
        conflicts: 0,
        refused: { expired: 1, 'bad-signature': 1 },
        throttled: 0,
      },
      ingest: {
        accepted: 1,
        replayed: 1,
        conflicts: 1,
        refused: { 'tenant-mismatch': 1 },
        throttled: 2,
      },
    });
    expect(pushSummaryLines(report)[2]).toBe(
      '  ingest  accepted 1, replayed 1, conflicts 1, throttled (429, then accepted) 2, refused tenant-mismatch 1',
    );
  });

  it('the check fails on an unexpected answer, and on a burst never throttled', () => {
    expect(pushCheck(summarizePushRun(outcomes), true).ok).toBe(true);
    const wrong = summarizePushRun([
      ...outcomes,
      outcome({
        name: 'forged',
        status: 200,
        expected: 401,
        expectedReason: 'bad-signature',
        ok: false,
      }),
    ]);
    expect(pushCheck(wrong, true)).toMatchObject({
      ok: false,
      detail: 'forged: 200, expected 401 bad-signature',
    });
    const unthrottled = summarizePushRun(outcomes.map((o) => ({ ...o, throttled: 0 })));
    expect(pushCheck(unthrottled, true)).toMatchObject({
      ok: false,
      detail: 'the burst was never answered 429',
    });
    expect(pushCheck(unthrottled, false).ok).toBe(true);
  });
});
