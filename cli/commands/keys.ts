/**
 * `billing-dedup keys create|rotate|revoke|list --tenant t --source s`: the usage ingest API's keys
 * (docs/push-endpoint.md). A key is shown once, when it is created; the ledger table keeps only its
 * SHA-256. Rotating issues a new key and lets the old ones of that tenant and source work for a grace
 * period; revoking ends one at once. No redeploy either way.
 */
import { isSlug, slugProblem } from '../../contract/slugs';
import {
  ApiKeyNotFoundError,
  DynamoApiKeyAdmin,
  publicApiKeyRecord,
} from '../../lambda/adapters/api-key-admin';
import {
  DEFAULT_ROTATION_GRACE_SECONDS,
  apiKeyState,
  type ApiKeyRecord,
} from '../../lambda/core/ingest/api-key-lifecycle';
import { CliError, EXIT, UsageError } from '../errors';
import { json, plural } from '../format';
import type { Session } from '../session';

export interface KeysFlags {
  tenant: string;
  source?: string;
  keyId?: string;
  graceSeconds?: number;
  json?: boolean;
}

const slug = (kind: 'tenant' | 'source', value: string | undefined): string => {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${kind} is required`);
  if (!isSlug(value)) throw new UsageError(`--${kind}: ${slugProblem(kind, value)}`);
  return value;
};

const describe = (record: ApiKeyRecord, now: Date): string => {
  const state = apiKeyState(record, now);
  const when =
    state === 'revoked'
      ? ` (revoked ${record.revokedAt})`
      : record.expiresAt !== undefined
        ? ` (${state === 'expired' ? 'expired' : 'expires'} ${record.expiresAt})`
        : '';
  return `  ${record.keyId}  ${record.tenant}/${record.source}  created ${record.createdAt}  ${state}${when}`;
};

const adminOf = async (session: Session) => {
  const table = await session.resources.ledgerTable();
  return { table, admin: new DynamoApiKeyAdmin(session.clients.dynamo, table) };
};

export const keysCommand = async (
  action: 'create' | 'rotate' | 'revoke' | 'list',
  flags: KeysFlags,
  session: Session,
): Promise<number> => {
  const tenant = slug('tenant', flags.tenant);
  const source =
    action === 'list' && flags.source === undefined ? undefined : slug('source', flags.source);
  const now = new Date(session.now());
  const out = session.io.stdout;
  const { table, admin } = await adminOf(session);
  if (action === 'list') {
    const records = (await admin.list(tenant, source)).map(publicApiKeyRecord);
    if (flags.json)
      out.write(json({ table, keys: records.map((r) => ({ ...r, state: apiKeyState(r, now) })) }));
    else
      out.write(
        records.length === 0
          ? `No API keys for tenant ${tenant}${source ? ` and source ${source}` : ''}.\n`
          : `${plural(records.length, 'API key')} of tenant ${tenant}${source ? `, source ${source}` : ''}:\n${records.map((r) => describe(r, now)).join('\n')}\n`,
      );
    return EXIT.ok;
  }
  if (action === 'revoke') {
    if (flags.keyId === undefined || flags.keyId.trim() === '')
      throw new UsageError('--key-id is required (see `billing-dedup keys list`)');
    let revoked: ApiKeyRecord;
    try {
      revoked = await admin.revoke(tenant, source as string, flags.keyId.trim(), now);
    } catch (error) {
      if (error instanceof ApiKeyNotFoundError) throw new CliError(error.message);
      throw error;
    }
    if (flags.json) out.write(json({ table, revoked }));
    else
      out.write(`Revoked API key ${revoked.keyId} of ${tenant}/${source}: refused from now on.\n`);
    return EXIT.ok;
  }
  const issued =
    action === 'create'
      ? { ...(await admin.create(tenant, source as string, now)), expiring: [] }
      : await admin.rotate(
          tenant,
          source as string,
          flags.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS,
          now,
        );
  if (flags.json)
    out.write(json({ table, key: issued.key, ...issued.record, expiring: issued.expiring }));
  else
    out.write(
      [
        `API key ${issued.record.keyId} for ${tenant}/${source} (shown once; only its SHA-256 is stored):`,
        `  ${issued.key}`,
        ...issued.expiring.map(
          (e) =>
            `Key ${e.keyId} keeps working until ${e.expiresAt}, then is refused (401 expired).`,
        ),
        '',
      ].join('\n'),
    );
  return EXIT.ok;
};
