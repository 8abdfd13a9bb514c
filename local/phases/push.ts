/**
 * The push sample over HTTP (local/scenarios/push-requests.ts): sends each request to the local HTTP API
 * with the credential it describes — Pub/Sub tokens signed by the local Google key (or a forger's key,
 * or expired, or for another audience), a tenant's Azure webhook token, an issued API key, a SigV4
 * signature with a local session of an AWS role (or with a secret that is not its) — and records
 * every answer. As Pub/Sub, Azure and a well-behaved producer do, a 5xx is sent again after a moment
 * and a 429 after its `Retry-After`; the last answer is the one judged.
 */
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';
import type { LocalGoogleKeys } from '../emulators/google-keys';
import type { LocalIamIdentity } from '../emulators/iam-authorizer';
import { pushClaims } from '../emulators/google-keys';
import {
  summarizePushRun,
  type PushRequestOutcome,
  type PushRunReport,
} from '../report/push-report';
import {
  localServiceAccount,
  pushedAlertKey,
  type PushSample,
  type PushSampleRequest,
} from '../scenarios/push-requests';

export interface PushCredentials {
  /** API key name (PushSample.apiKeys) → the key text issued for it. */
  readonly apiKeys: ReadonlyMap<string, string>;
  /** Tenant → its Azure webhook token. */
  readonly azureTokens: ReadonlyMap<string, string>;
  /** The IAM route's signing region and each sample role's (PushSample.iamRoles) local session. */
  readonly iam?: {
    readonly region: string;
    readonly sessions: ReadonlyMap<string, LocalIamIdentity>;
  };
}

export interface PushRunOptions {
  /** The HTTP API's base URL, no trailing slash. */
  readonly url: string;
  /** The audience the stack verifies (`<url>/pubsub`). */
  readonly audience: string;
  readonly google: LocalGoogleKeys;
  /** A key pair Google never published, with the same key id: what a forger signs with. */
  readonly forger: LocalGoogleKeys;
  readonly credentials: PushCredentials;
  readonly sample: PushSample;
  /** Attempts of a request answered 5xx (default 5). */
  readonly maxServerErrors?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly signal?: AbortSignal;
}

const RECEIVED_AT_ATTRIBUTE = 'receivedAt';
const SERVER_ERROR_PAUSE_MS = 200;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const headersFor = async (
  request: PushSampleRequest,
  options: PushRunOptions,
): Promise<{ headers: Record<string, string>; query: string }> => {
  const { credential } = request;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
  if (credential.kind === 'google') {
    const email = localServiceAccount(credential.account);
    const audience =
      credential.token === 'wrong-audience' ? `${options.audience}-elsewhere` : options.audience;
    const signer = credential.token === 'forged' ? options.forger : options.google;
    const token = await signer.sign(
      pushClaims(audience, email),
      credential.token === 'expired'
        ? { issuedAt: new Date(Date.now() - 2 * 3600_000), lifetimeSeconds: 3600 }
        : {},
    );
    headers.authorization = `Bearer ${token}`;
  }
  if (credential.kind === 'api-key')
    headers['x-api-key'] =
      options.credentials.apiKeys.get(credential.key) ?? `bd_unissued_${'0'.repeat(32)}`;
  const query =
    credential.kind === 'azure-token'
      ? `?token=${encodeURIComponent(options.credentials.azureTokens.get(credential.tenant) ?? '')}`
      : '';
  return { headers, query };
};

interface Answer {
  status: number;
  reason?: string;
  replayed: boolean;
  retryAfterSeconds?: number;
  at: Date;
}

/** The request's headers with a SigV4 signature (service execute-api), as an AWS SDK caller sends them. */
const signedHeaders = async (
  url: URL,
  headers: Record<string, string>,
  body: string,
  credential: Extract<PushSampleRequest['credential'], { kind: 'iam' }>,
  iam: NonNullable<PushCredentials['iam']>,
): Promise<Record<string, string>> => {
  const session = iam.sessions.get(credential.role);
  if (session === undefined) throw new Error(`no local session for role ${credential.role}`);
  const signer = new SignatureV4({
    service: 'execute-api',
    region: iam.region,
    credentials:
      credential.signature === 'forged'
        ? { ...session, secretAccessKey: `${session.secretAccessKey}-forged` }
        : session,
    sha256: Sha256,
  });
  const signed = await signer.sign(
    new HttpRequest({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers: { ...headers, host: url.host },
      body,
    }),
  );
  // fetch sets Host itself, to the host that was signed.
  const { host: _host, ...sent } = signed.headers;
  return sent;
};

const send = async (request: PushSampleRequest, options: PushRunOptions): Promise<Answer> => {
  const built = await headersFor(request, options);
  const url = new URL(`${options.url}${request.path}${built.query}`);
  const { iam } = options.credentials;
  const headers =
    request.credential.kind === 'iam' && iam !== undefined
      ? await signedHeaders(url, built.headers, request.body, request.credential, iam)
      : built.headers;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: request.body,
    signal: options.signal,
  });
  const text = await response.text();
  let reason: string | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') reason = parsed.error;
  } catch {
    reason = undefined;
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return {
    status: response.status,
    ...(reason !== undefined && response.status >= 400 ? { reason } : {}),
    replayed: response.headers.get('idempotent-replayed') === 'true',
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
    at: new Date(),
  };
};

/** One request until its answer is final: 5xx sent again after a pause, 429 after Retry-After. */
const deliver = async (
  request: PushSampleRequest,
  options: PushRunOptions,
): Promise<PushRequestOutcome> => {
  const sleep = options.sleep ?? defaultSleep;
  let throttled = 0;
  let serverErrors = 0;
  for (;;) {
    const answer = await send(request, options);
    if (answer.status === 429) {
      throttled++;
      await sleep((answer.retryAfterSeconds ?? 1) * 1000 + 100);
      continue;
    }
    if (answer.status >= 500 && ++serverErrors < (options.maxServerErrors ?? 5)) {
      await sleep(SERVER_ERROR_PAUSE_MS * serverErrors);
      continue;
    }
    const expected = request.expect;
    const ok =
      answer.status === expected.status &&
      (expected.reason === undefined || answer.reason === expected.reason) &&
      answer.replayed === (expected.replayed ?? false);
    return {
      name: request.name,
      route: request.route,
      status: answer.status,
      ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
      ...(answer.replayed ? { replayed: true } : {}),
      throttled,
      serverErrors,
      expected: expected.status,
      ...(expected.reason !== undefined ? { expectedReason: expected.reason } : {}),
      ok,
      ...(request.alertAtReceipt && answer.status === 200
        ? {
            alertKey: pushedAlertKey(request.body, {
              tenant: request.path.split('/')[2] ?? '',
              [RECEIVED_AT_ATTRIBUTE]: answer.at.toISOString(),
            }),
          }
        : {}),
    };
  }
};

/**
 * Sends the sample: the plain requests one after the other, in order, and meanwhile each burst's
 * requests all at once (a burst's 429s wait for the next rate window while the rest goes on).
 * Outcomes are listed in the sample's order.
 */
export const runPushSample = async (options: PushRunOptions): Promise<PushRunReport> => {
  const { requests } = options.sample;
  const outcomes: PushRequestOutcome[] = new Array<PushRequestOutcome>(requests.length);
  const indexed = requests.map((request, index) => ({ request, index }));
  const bursts = new Map<string, typeof indexed>();
  for (const entry of indexed)
    if (entry.request.burst !== undefined)
      bursts.set(entry.request.burst, [...(bursts.get(entry.request.burst) ?? []), entry]);
  const inOrder = async () => {
    for (const { request, index } of indexed.filter((entry) => entry.request.burst === undefined))
      outcomes[index] = await deliver(request, options);
  };
  const burst = async (entries: typeof indexed) => {
    await Promise.all(
      entries.map(async ({ request, index }) => {
        outcomes[index] = await deliver(request, options);
      }),
    );
  };
  await Promise.all([inOrder(), ...[...bursts.values()].map(burst)]);
  return summarizePushRun(outcomes);
};
