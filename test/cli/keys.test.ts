/**
 * `billing-dedup keys create|rotate|revoke|list` against DynamoDB Local, checked through what the push
 * endpoint reads (DynamoCredentials.bindingOf) and decides (isLiveBinding): a created key works, a
 * rotated-out key works until its grace period ends, a revoked key is unknown at once, and the table
 * never holds a key's text.
 */
import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoCredentials } from '../../lambda/adapters/api-keys';
import { apiKeyHash } from '../../lambda/core/ingest/api-key';
import { isLiveBinding } from '../../lambda/core/ingest/api-key-lifecycle';
import { createLedgerTables, localDynamo, type LedgerTables } from '../support/aws-local';
import { cli } from './helpers';

let dynamo: DynamoDBClient;
let tables: LedgerTables;
let credentials: DynamoCredentials;
let now = Date.parse('2026-12-01T10:00:00Z');

beforeAll(async () => {
  dynamo = localDynamo();
  tables = await createLedgerTables(dynamo);
  credentials = new DynamoCredentials(dynamo, tables.ledgerTable);
});
afterAll(() => dynamo.destroy());

const deps = () => ({ clients: { dynamo }, now: () => now });
const keys = async (argv: string[]) => {
  const result = await cli(['keys', ...argv, '--table', tables.ledgerTable, '--json'], deps());
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
};
const works = async (key: string, at = now) => {
  const binding = await credentials.bindingOf(apiKeyHash(key));
  return binding !== undefined && isLiveBinding(binding, new Date(at)) ? binding : undefined;
};

describe('billing-dedup keys', () => {
  let first: { key: string; keyId: string };

  it('create prints the key once and stores only its hash, bound to the tenant and source', async () => {
    first = await keys(['create', '--tenant', 'acme', '--source', 'metering']);
    expect(first.key).toMatch(/^bd_[A-Za-z0-9_-]{32}$/);
    expect(first).toMatchObject({ tenant: 'acme', source: 'metering', expiring: [] });
    expect(first.keyId).toBe(apiKeyHash(first.key).slice(0, 12));
    expect(await works(first.key)).toEqual({ tenant: 'acme', source: 'metering' });
    const { Items = [] } = await dynamo.send(new ScanCommand({ TableName: tables.ledgerTable }));
    expect(JSON.stringify(Items)).not.toContain(first.key);

    const text = await cli(
      [
        'keys',
        'create',
        '--tenant',
        'acme',
        '--source',
        'billing-watcher',
        '--table',
        tables.ledgerTable,
      ],
      deps(),
    );
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/shown once; only its SHA-256 is stored\):\n {2}bd_/);
  });

  it('rotate issues a new key; the old one works through the grace period, then is refused', async () => {
    const rotated = await keys([
      'rotate',
      '--tenant',
      'acme',
      '--source',
      'metering',
      '--grace-seconds',
      '3600',
    ]);
    expect(rotated.keyId).not.toBe(first.keyId);
    expect(rotated.expiring).toEqual([
      { keyId: first.keyId, expiresAt: '2026-12-01T11:00:00.000Z' },
    ]);
    expect(await works(rotated.key)).toBeDefined();
    expect(await works(first.key, Date.parse('2026-12-01T10:59:59Z'))).toBeDefined();
    expect(await works(first.key, Date.parse('2026-12-01T11:00:00Z'))).toBeUndefined();
    // The other source's key is untouched by a rotation of metering.
    const listed = await keys(['list', '--tenant', 'acme']);
    expect(
      listed.keys.map((k: { source: string; state: string }) => `${k.source} ${k.state}`).sort(),
    ).toEqual(['billing-watcher active', 'metering active', 'metering expiring']);
    expect(JSON.stringify(listed)).not.toContain('keyHash');

    now = Date.parse('2026-12-01T12:00:00Z');
    const later = await keys(['list', '--tenant', 'acme', '--source', 'metering']);
    expect(later.keys.map((k: { state: string }) => k.state).sort()).toEqual(['active', 'expired']);
  });

  it('revoke refuses a key at once; revoking it again or an unknown id exits 1', async () => {
    const issued = await keys(['create', '--tenant', 'globex', '--source', 'metering']);
    expect(await works(issued.key)).toBeDefined();
    const revoked = await keys([
      'revoke',
      '--tenant',
      'globex',
      '--source',
      'metering',
      '--key-id',
      issued.keyId,
    ]);
    expect(revoked.revoked).toMatchObject({
      keyId: issued.keyId,
      revokedAt: '2026-12-01T12:00:00.000Z',
    });
    expect(await credentials.bindingOf(apiKeyHash(issued.key))).toBeUndefined();
    const again = await cli(
      [
        'keys',
        'revoke',
        '--tenant',
        'globex',
        '--source',
        'metering',
        '--key-id',
        issued.keyId,
        '--table',
        tables.ledgerTable,
      ],
      deps(),
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `no API key ${issued.keyId} of tenant globex and source metering`,
    );
  });

  it('refuses a tenant or source that is not a slug, and a rotate without --source (exit 2)', async () => {
    const bad = await cli(
      ['keys', 'create', '--tenant', 'Acme Corp', '--source', 'metering', '--table', 't'],
      deps(),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tenant');
    const missing = await cli(['keys', 'rotate', '--tenant', 'acme', '--table', 't'], deps());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--source');
  });
});
