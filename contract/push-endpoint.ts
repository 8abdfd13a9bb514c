/**
 * The push endpoint's configuration (`pushEndpoint`, docs/push-endpoint.md): validated at synth by
 * lib/config-rules.ts and handed to the function as JSON (PUSH_ENDPOINT), parsed back by the same code.
 */
import { parseIamCallers, type IamCallerBinding } from './iam-callers';
import { isSlug, slugProblem } from './slugs';

export const PUSH_ENDPOINT_KEY = 'pushEndpoint';

/** Google's published OIDC signing keys (JWK set), what `jose` fetches, caches and refreshes. */
export const GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';

export const DEFAULT_PUSH_MAX_BODY_BYTES = 256 * 1024;
export const DEFAULT_PUSH_RATE_PER_SECOND = 50;
export const DEFAULT_PUSH_BURST = 100;
export const DEFAULT_REFUSED_AUTH_ALARM = 20;

export interface PushEndpointConfig {
  /** Pub/Sub push: the audience the subscriptions' OIDC tokens carry, and service account → tenant. */
  readonly pubsub?: {
    readonly audience: string;
    readonly serviceAccounts: Readonly<Record<string, string>>;
    /** Where the verifier reads Google's keys; a local key set in the local run. */
    readonly jwksUrl?: string;
  };
  /** Tenants whose Azure action groups post to `/azure/<tenant>` (token hashes in the ledger table). */
  readonly azureTenants?: readonly string[];
  /**
   * Tenants whose action groups use the secure webhook (Entra ID token): tenant → the Entra tenant id,
   * the app registration (audience), and optionally the caller app id and key set URL.
   */
  readonly azureEntra?: Readonly<
    Record<
      string,
      {
        readonly entraTenantId: string;
        readonly audience: string;
        readonly callerAppId?: string;
        readonly jwksUrl?: string;
      }
    >
  >;
  /** The usage ingest API (`/v1/events`). */
  readonly ingest?: boolean;
  /**
   * The ingest API for AWS callers (`/v1/iam/events`, SigV4): each IAM role's tenant and source. It
   * reaches the function in its bundled configuration file, not in PUSH_ENDPOINT (`pushEnvironmentConfig`).
   */
  readonly iamCallers?: readonly IamCallerBinding[];
  /** Ingest API requests per minute per API key, answered 429 with Retry-After above it. */
  readonly ingestPerMinute?: number;
  readonly maxBodyBytes?: number;
  /** Stage throttling of the HTTP API (requests per second, burst), answered 429. */
  readonly ratePerSecond?: number;
  readonly burst?: number;
  /** Refused authentications per 5 minutes above which the ops alarm fires. */
  readonly refusedAuthAlarmPerFiveMinutes?: number;
}

const FIELDS = [
  'pubsub',
  'azureTenants',
  'azureEntra',
  'ingest',
  'iamCallers',
  'ingestPerMinute',
  'maxBodyBytes',
  'ratePerSecond',
  'burst',
  'refusedAuthAlarmPerFiveMinutes',
];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const problem = (field: string, reason: string): Error =>
  new Error(`${PUSH_ENDPOINT_KEY}.${field} ${reason}`);

const whole = (value: unknown, field: string, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw problem(
      field,
      `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return value;
};

const httpsUrl = (value: unknown, field: string): string => {
  if (typeof value !== 'string') throw problem(field, 'must be a URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw problem(field, `must be a URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.hostname !== 'localhost' && url.hostname !== '127.0.0.1')
    throw problem(field, 'must be an https URL');
  return value;
};

const parsePubSub = (value: unknown): PushEndpointConfig['pubsub'] => {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw problem('pubsub', 'must be { audience, serviceAccounts, jwksUrl? }');
  const { audience, serviceAccounts, jwksUrl } = value;
  if (typeof audience !== 'string' || audience.trim() === '')
    throw problem(
      'pubsub.audience',
      'must be the audience the push subscriptions are set to (our endpoint URL)',
    );
  if (!isRecord(serviceAccounts) || Object.keys(serviceAccounts).length === 0)
    throw problem('pubsub.serviceAccounts', 'must map service account e-mails to tenants');
  const accounts: Record<string, string> = {};
  for (const [email, tenant] of Object.entries(serviceAccounts)) {
    if (!/^[^@\s]+@[^@\s]+$/.test(email))
      throw problem(`pubsub.serviceAccounts`, `${JSON.stringify(email)} is not an e-mail`);
    if (!isSlug(tenant))
      throw problem(`pubsub.serviceAccounts.${email}`, slugProblem('tenant', tenant));
    accounts[email.toLowerCase()] = tenant;
  }
  return {
    audience,
    serviceAccounts: accounts,
    ...(jwksUrl !== undefined ? { jwksUrl: httpsUrl(jwksUrl, 'pubsub.jwksUrl') } : {}),
  };
};

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const parseAzureEntra = (value: unknown): PushEndpointConfig['azureEntra'] => {
  if (value === undefined) return undefined;
  if (!isRecord(value))
    throw problem(
      'azureEntra',
      'must map tenants to { entraTenantId, audience, callerAppId?, jwksUrl? }',
    );
  const parsed: Record<string, NonNullable<PushEndpointConfig['azureEntra']>[string]> = {};
  for (const [tenant, entry] of Object.entries(value)) {
    const field = `azureEntra.${tenant}`;
    if (!isSlug(tenant)) throw problem('azureEntra', slugProblem('tenant', tenant));
    if (!isRecord(entry))
      throw problem(field, 'must be { entraTenantId, audience, callerAppId?, jwksUrl? }');
    const { entraTenantId, audience, callerAppId, jwksUrl } = entry;
    if (typeof entraTenantId !== 'string' || !GUID.test(entraTenantId))
      throw problem(`${field}.entraTenantId`, 'must be the Entra tenant (directory) id, a GUID');
    if (typeof audience !== 'string' || audience.trim() === '')
      throw problem(`${field}.audience`, "must be the app registration's Application ID URI or id");
    if (callerAppId !== undefined && (typeof callerAppId !== 'string' || !GUID.test(callerAppId)))
      throw problem(`${field}.callerAppId`, 'must be an application id (GUID)');
    parsed[tenant] = {
      entraTenantId,
      audience,
      ...(callerAppId !== undefined ? { callerAppId } : {}),
      ...(jwksUrl !== undefined ? { jwksUrl: httpsUrl(jwksUrl, `${field}.jwksUrl`) } : {}),
    };
  }
  return parsed;
};

/** Validates the `pushEndpoint` object; errors name the field and the fix. */
export const parsePushEndpoint = (value: unknown): PushEndpointConfig | undefined => {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value))
    throw new Error(
      `${PUSH_ENDPOINT_KEY} must be an object { pubsub?, azureTenants?, ingest?, … }`,
    );
  const unknown = Object.keys(value).find((key) => !FIELDS.includes(key));
  if (unknown) throw problem(unknown, `is not a known field (known: ${FIELDS.join(', ')})`);
  const azure = value.azureTenants;
  if (azure !== undefined && (!Array.isArray(azure) || azure.some((t) => !isSlug(t))))
    throw problem('azureTenants', 'must be a list of tenant slugs');
  if (value.ingest !== undefined && typeof value.ingest !== 'boolean')
    throw problem('ingest', 'must be true or false');
  const config: PushEndpointConfig = {
    pubsub: parsePubSub(value.pubsub),
    azureTenants: azure as string[] | undefined,
    azureEntra: parseAzureEntra(value.azureEntra),
    ingest: value.ingest,
    iamCallers: parseIamCallers(value.iamCallers),
    ingestPerMinute: whole(value.ingestPerMinute, 'ingestPerMinute', 1, 1_000_000),
    maxBodyBytes: whole(value.maxBodyBytes, 'maxBodyBytes', 1024, 6 * 1024 * 1024),
    ratePerSecond: whole(value.ratePerSecond, 'ratePerSecond', 1, 10_000),
    burst: whole(value.burst, 'burst', 1, 5_000),
    refusedAuthAlarmPerFiveMinutes: whole(
      value.refusedAuthAlarmPerFiveMinutes,
      'refusedAuthAlarmPerFiveMinutes',
      1,
      100_000,
    ),
  };
  if (
    !config.pubsub &&
    (config.azureTenants ?? []).length === 0 &&
    Object.keys(config.azureEntra ?? {}).length === 0 &&
    !config.ingest &&
    config.iamCallers === undefined
  )
    throw new Error(
      `${PUSH_ENDPOINT_KEY} enables nothing: set pubsub, azureTenants, ingest or iamCallers (or remove it)`,
    );
  return JSON.parse(JSON.stringify(config)) as PushEndpointConfig;
};

/**
 * What PUSH_ENDPOINT holds: the configuration without `iamCallers`, which grows with the bound roles and
 * travels in the bundled configuration file instead of the 4 KB environment (contract/function-config.ts).
 */
export const pushEnvironmentConfig = (config: PushEndpointConfig): PushEndpointConfig => {
  const { iamCallers: _bundled, ...rest } = config;
  return rest;
};

/** The endpoint's configuration as the function reads it back: PUSH_ENDPOINT plus the bundled bindings. */
export const pushConfigFromParts = (
  environmentJson: string,
  iamCallers: readonly IamCallerBinding[] | undefined,
): PushEndpointConfig | undefined =>
  parsePushEndpoint({
    ...(JSON.parse(environmentJson) as Record<string, unknown>),
    ...(iamCallers !== undefined ? { iamCallers } : {}),
  });

/** The function's environment. */
export const PUSH_ENV = {
  config: 'PUSH_ENDPOINT',
  alertsTopicArn: 'ALERTS_TOPIC_ARN',
  costTopicArn: 'COST_TOPIC_ARN',
  costTopicFifo: 'COST_TOPIC_FIFO',
} as const;

/** CloudWatch metric of refused authentications (401/403), dimension `route`. */
export const REFUSED_AUTH_METRIC = 'pushAuthRefused';
