/**
 * The usage ingest API's two doors, one contract: `/v1/events` takes an API key, `/v1/iam/events` a
 * SigV4-signed request of a bound IAM role (`iam-caller.ts`). Either way the credential gives the
 * tenant and source; the rate limit, the Idempotency-Key, the bodies and the answers are the same, and
 * both scope them by tenant and source (a producer moving from a key to a role keeps its replays).
 */
import type { ApiKeyStore } from '../ingest/api-key';
import { apiKeyHash, presentedApiKey } from '../ingest/api-key';
import { isLiveBinding } from '../ingest/api-key-lifecycle';
import { ingestEvents, type IngestCaller, type IngestPorts } from '../ingest/ingest';
import { rateWindowAt, throttled, type RateCounter } from '../ingest/rate-limit';
import { verifyIamCaller, type IamCallerBindings, type IamCallerIdentity } from './iam-caller';
import { refuse, type Refusal } from './refusal';
import { parseBody } from './request-body';

export interface IngestDeps {
  /** Absent: `/v1/events` is not configured. */
  readonly apiKeys?: ApiKeyStore;
  /** Absent: `/v1/iam/events` is not configured. */
  readonly iamCallers?: IamCallerBindings;
  readonly ports: IngestPorts;
  /** Requests per minute per tenant and source; absent: no limit. */
  readonly rateLimit?: { readonly perMinute: number; readonly counter: RateCounter };
}

export interface IngestRequest {
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
  readonly receivedAt: Date;
  readonly iamCaller?: IamCallerIdentity;
}

export interface IngestHttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const apiKeyCaller = async (
  request: IngestRequest,
  apiKeys: ApiKeyStore,
): Promise<IngestCaller | Refusal> => {
  const key = presentedApiKey(request.headers);
  if (key === undefined) return refuse(401, 'missing-credential', 'no API key');
  const caller = await apiKeys.bindingOf(apiKeyHash(key));
  if (caller === undefined) return refuse(401, 'wrong-secret', 'unknown API key');
  if (!isLiveBinding(caller, request.receivedAt))
    return refuse(401, 'expired', 'the API key was rotated out; use its replacement');
  return caller;
};

const ingestAs = async (
  caller: IngestCaller,
  request: IngestRequest,
  deps: IngestDeps,
): Promise<IngestHttpAnswer | Refusal> => {
  const limit = deps.rateLimit;
  if (limit !== undefined) {
    const window = rateWindowAt(request.receivedAt.getTime());
    const scope = `${caller.tenant}#${caller.source}`;
    if (!(await limit.counter.take(scope, window, limit.perMinute)))
      return throttled(window, limit.perMinute);
  }
  const body = parseBody(request.body);
  if (!('value' in body)) return body;
  const result = await ingestEvents(
    { tenant: caller.tenant, source: caller.source },
    request.headers['idempotency-key'],
    body.value,
    deps.ports,
  );
  if (!result.ok) return result;
  return {
    status: result.status,
    headers: {
      'content-type': 'application/json',
      ...(result.replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
    body: result.body,
  };
};

/** `/v1/events`: the caller is the API key's binding. */
export const ingestWithApiKey = async (
  request: IngestRequest,
  deps: IngestDeps,
): Promise<IngestHttpAnswer | Refusal> => {
  const caller = await apiKeyCaller(request, deps.apiKeys as ApiKeyStore);
  return 'ok' in caller ? caller : ingestAs(caller, request, deps);
};

/** `/v1/iam/events`: the caller is the signing role's binding. */
export const ingestAsIamCaller = async (
  request: IngestRequest,
  deps: IngestDeps,
): Promise<IngestHttpAnswer | Refusal> => {
  const caller = verifyIamCaller(request.iamCaller, deps.iamCallers as IamCallerBindings);
  return caller.ok ? ingestAs(caller, request, deps) : caller;
};
