import { S3Archive } from '../../../lambda/adapters/s3-archive';
import { signedS3PutLike } from '../../../lambda/adapters/s3-signed-put';
import { archiveObjectsOf } from '../../../lambda/core/archive';
import { startLocalS3, type LocalS3 } from '../../../local/emulators/s3';
import { archiveCheck, readArchiveReport, rebuildCheck } from '../../../local/report/archive-check';

const BUCKET = 'archive-check';
let s3: LocalS3;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  const archive = new S3Archive(signedS3PutLike(s3.client), BUCKET);
  const at = new Date('2026-11-03T10:00:00Z');
  await archive.put([
    ...archiveObjectsOf(
      'cost-events',
      [
        { messageId: 'a', body: '{}' },
        { messageId: 'b', body: '{}' },
      ],
      [
        { messageId: 'a', outcome: 'applied', evidence: { tenant: 'acme', period: '2026-11' } },
        { messageId: 'b', outcome: 'failed', reason: 'ThrottlingException' },
      ],
      at,
    ),
    ...archiveObjectsOf(
      'budget-alerts',
      [{ messageId: 'c', body: 'x' }],
      [{ messageId: 'c', outcome: 'rejected' }],
      at,
    ),
  ]);
});

afterAll(() => s3.stop());

describe('the local run’s archive check', () => {
  it('counts objects and records, and every acknowledged message the archive holds only as failed or not at all', async () => {
    const report = await readArchiveReport(s3.client, BUCKET, new Set(['a', 'b', 'c', 'd']));
    expect(report).toEqual({ objects: 3, records: 3, missing: 2 });
    expect(archiveCheck(report, 4)).toEqual({
      name: 'archive',
      ok: false,
      detail: '2 of 4 acknowledged message(s) missing from the archive',
    });
  });

  it('passes when every acknowledged message is archived with its outcome', async () => {
    const report = await readArchiveReport(s3.client, BUCKET, new Set(['a', 'c']));
    expect(archiveCheck(report, 2)).toMatchObject({ ok: true });
  });
});

describe('the local run’s rebuild check', () => {
  it('passes only when the rebuild equals the live ledger, naming each total that differs', () => {
    expect(rebuildCheck({ equal: 22, differences: [] })).toEqual({
      name: 'archive rebuild',
      ok: true,
      detail:
        'rebuild equals the live ledger: the ledger rebuilt from the archive states all 22 account-currency statement totals (stream and export) exactly as the live one',
    });
    const failed = rebuildCheck({
      equal: 21,
      differences: [
        {
          tenant: 'acme',
          period: '2026-11',
          accountId: '200000000011',
          currency: 'USD',
          live: { total: '3021.381087', charges: 65 },
          rebuilt: { total: '3024.131087', charges: 64 },
        },
      ],
    });
    expect(failed.ok).toBe(false);
    expect(failed.detail).toContain(
      'acme/200000000011/2026-11 USD live 3021.381087 (65) vs rebuilt 3024.131087 (64)',
    );
  });
});
