/**
 * `ledger --evidence` on an account whose statement is an export snapshot: each booked row with its
 * data file, the version the plan pinned and its row number, read again from that version after the
 * file was overwritten; the rows' sums checked against the SNAPSHOT item (a tampered one exits 1).
 * DynamoDB Local for the ledger; S3 is a versioned fake bucket (the local S3 has no versions).
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  ledgerKey,
  ledgerPartitionKeyOf,
  snapshotSortKey,
} from '../../lambda/adapters/table-layout';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { csvOf, hourLine } from '../support/export-pipeline';
import { fakeBucket } from '../support/fake-s3-bucket';
import { deliverPinnedExport } from '../support/pinned-export';
import type { ExecutionRef } from '../../lambda/core/exports/run-task';
import { cli } from './helpers';

const ACCOUNT = '200000000011';
const OTHER = '200000000022';
const dynamo = localDynamo();
const bucket = fakeBucket(true);
let tables: LedgerTables;
let ref: ExecutionRef;
let keys: string[];

beforeAll(async () => {
  tables = await createLedgerTables(dynamo);
  ({ ref, keys } = await deliverPinnedExport(
    { bucket, dynamo, ledgerTable: tables.ledgerTable },
    {
      tenant: 'acme',
      executionId: 'run-1',
      eventTime: '2026-12-02T06:00:00.000Z',
      sequencer: '0A',
      files: {
        'part-0.csv': csvOf([
          hourLine('0.1', ACCOUNT, 'EC2', 0),
          hourLine('7', OTHER, 'EC2', 1),
          hourLine('0.2', ACCOUNT, 'S3', 2),
          hourLine('1.25', ACCOUNT, 'EC2', 3, { currency: 'EUR' }),
        ]),
        'part-1.csv': csvOf([hourLine('3.000000000000000001', ACCOUNT, 'RDS', 4)]),
      },
    },
  ));
  // The first file overwritten after its execution: a new current version, the pinned v1 kept.
  bucket.put(keys[0], csvOf([hourLine('999', ACCOUNT, 'EC2', 0)]));
});

afterAll(() => dynamo.destroy());

const evidence = (...extra: string[]) =>
  cli(
    [
      'ledger',
      '--tenant',
      'acme',
      '--account',
      ACCOUNT,
      '--period',
      '2026-11',
      '--table',
      tables.ledgerTable,
      '--archive-bucket',
      'archive',
      '--evidence',
      ...extra,
    ],
    { clients: { dynamo, s3: bucket.client } },
  );

interface Report {
  totals: { currency: string; total: string }[];
  evidence: {
    exports: {
      executionId: string;
      role: string;
      booked: number;
      rows: {
        objectKey: string;
        versionId?: string;
        eTag?: string;
        row: number;
        amount: string;
        currency: string;
      }[];
      totals: { currency: string; total: string; rows: number }[];
      checks: { currency: string; equal: boolean }[];
    }[];
  };
}

it('lists every booked row of the account with its file, pinned version and row, read from the pinned version', async () => {
  const result = await evidence('--json');
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Report;
  const [snapshot] = report.evidence.exports;
  expect(report.evidence.exports).toHaveLength(1);
  expect(snapshot).toMatchObject({ executionId: 'run-1', role: 'counted', booked: 4 });
  const pin = { versionId: 'v1', eTag: expect.stringMatching(/^"[0-9a-f]{32}"$/) as string };
  expect(snapshot.rows).toEqual([
    { objectKey: keys[0], ...pin, row: 1, amount: '0.1', currency: 'USD' },
    { objectKey: keys[0], ...pin, row: 3, amount: '0.2', currency: 'USD' },
    { objectKey: keys[0], ...pin, row: 4, amount: '1.25', currency: 'EUR' },
    { objectKey: keys[1], ...pin, row: 1, amount: '3.000000000000000001', currency: 'USD' },
  ]);
  expect(snapshot.totals).toEqual([
    { currency: 'EUR', total: '1.25', rows: 1 },
    { currency: 'USD', total: '3.300000000000000001', rows: 3 },
  ]);
  expect(snapshot.checks.every((check) => check.equal)).toBe(true);
  // The statement counts the snapshot: the rows explain its totals exactly.
  expect(report.totals.map(({ currency, total }) => ({ currency, total }))).toEqual([
    { currency: 'EUR', total: '1.25' },
    { currency: 'USD', total: '3.300000000000000001' },
  ]);
  expect(ref.executionId).toBe('run-1');
});

it('--limit caps the rows printed, the sums still over all of them (text)', async () => {
  const result = await evidence('--limit', '1');
  expect(result.code).toBe(0);
  const text = result.stdout.slice(result.stdout.indexOf('Export rows of'));
  expect(text).toMatch(
    new RegExp(
      `^ {2}${keys[0].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} version v1 ETag "[0-9a-f]{32}" row 1: 0\\.1 USD$`,
      'm',
    ),
  );
  expect(text).toContain('… 3 more rows (--limit)');
  expect(text).not.toContain(' row 3: ');
  expect(text).toContain(
    'Check: USD rows 3.300000000000000001 (3 rows), snapshot 3.300000000000000001 (3 charges)',
  );
  expect(text).toContain('Check: EUR rows 1.25 (1 row), snapshot 1.25 (1 charge)');
});

it('a SNAPSHOT item the rows do not explain: exit 1 naming the execution and currency', async () => {
  await dynamo.send(
    new UpdateItemCommand({
      TableName: tables.ledgerTable,
      Key: ledgerKey(
        ledgerPartitionKeyOf('acme', ACCOUNT, '2026-11'),
        snapshotSortKey(ref.source, ref.executionId),
      ),
      UpdateExpression: 'SET totals.USD.#total = :total',
      ExpressionAttributeNames: { '#total': 'total' },
      ExpressionAttributeValues: { ':total': { N: '3.3' } },
    }),
  );
  const result = await evidence();
  expect(result.code).toBe(1);
  expect(result.stdout).toContain(
    'CHECK FAILED: USD rows 3.300000000000000001 (3 rows), snapshot 3.3 (3 charges)',
  );
  expect(result.stderr).toContain(
    'Export rows do not add up to their snapshot (run-1 USD: rows 3.300000000000000001 (3) vs snapshot 3.3 (3))',
  );
});
