/**
 * The push endpoint's routes, transport-free: a request (method, path, lower-cased headers, query, body
 * text) → an answer. Every route authenticates first (the tenant comes from the credential), then reads
 * the body; a 2xx is returned only once the publication succeeded — a publishing error propagates and
 * the handler answers 5xx, so Pub/Sub, Azure and producers retry.
 *
 *   POST /pubsub            Pub/Sub push, OIDC token (`pubsub-token.ts`)
 *   POST /azure/{tenant}    Azure action-group webhook, `?token=` secret (`azure-secret.ts`)
 *   POST /v1/events         usage ingest API, API key + Idempotency-Key (`ingest-route.ts`)
 *   POST /v1/iam/events     the same for AWS callers: SigV4 of a bound IAM role (`iam-caller.ts`)
 */
import { planAzureWebhook } from './azure-body';
import { verifyEntraToken, type EntraTokenPolicy } from './azure-entra-token';
import { verifyAzureSecret } from './azure-secret';
import type { IamCallerIdentity } from './iam-caller';
import { ingestAsIamCaller, ingestWithApiKey, type IngestDeps } from './ingest-route';
import type { Publication } from './publication';
import { planPubSubPush } from './pubsub-body';
import { verifyPubSubToken, type PubSubTokenPolicy } from './pubsub-token';
import { refuse, type Refusal } from './refusal';
import { parseBody } from './request-body';

export interface PushRequest {
  readonly method: string;
  readonly path: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly body: string;
  readonly receivedAt: Date;
  /** The signer API Gateway's IAM authorizer verified (`requestContext.authorizer.iam`), if any. */
  readonly iamCaller?: IamCallerIdentity;
}

export interface PushAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type PushRoute = 'pubsub' | 'azure' | 'ingest' | 'iam';

export interface PushDeps {
  readonly maxBodyBytes: number;
  /** Absent: the route answers 404 (not configured). */
  readonly pubsub?: PubSubTokenPolicy;
  /** The SHA-256 (hex) of a tenant's Azure webhook token. */
  readonly azureSecretHashOf?: (tenant: string) => Promise<string | undefined>;
  /** Tenants whose action groups use the secure webhook (Entra ID token) instead of the URL token. */
  readonly azureEntraPolicyOf?: (tenant: string) => EntraTokenPolicy | undefined;
  /** The ingest API: `apiKeys` opens `/v1/events`, `iamCallers` opens `/v1/iam/events`. */
  readonly ingest?: IngestDeps;
  publish(publications: readonly Publication[]): Promise<void>;
  /** Every refusal, for the logs and the refused-auth metric. */
  onRefused(route: PushRoute | 'unknown', refusal: Refusal): void;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const AZURE_PATH = /^\/azure\/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)$/;

const answer = (
  status: number,
  body: object,
  headers: Record<string, string> = {},
): PushAnswer => ({
  status,
  headers: { ...JSON_HEADERS, ...headers },
  body: JSON.stringify(body),
});

const refusalAnswer = (refusal: Refusal & { key?: string }): PushAnswer =>
  answer(
    refusal.status,
    {
      error: refusal.reason,
      message: refusal.detail,
      ...(refusal.key !== undefined ? { idempotencyKey: refusal.key } : {}),
    },
    refusal.retryAfterSeconds !== undefined
      ? { 'retry-after': String(refusal.retryAfterSeconds) }
      : {},
  );

const routeOf = (request: PushRequest): { route: PushRoute; tenant?: string } | undefined => {
  if (request.path === '/pubsub') return { route: 'pubsub' };
  if (request.path === '/v1/events') return { route: 'ingest' };
  if (request.path === '/v1/iam/events') return { route: 'iam' };
  const azure = AZURE_PATH.exec(request.path);
  return azure ? { route: 'azure', tenant: azure[1] } : undefined;
};

const published = async (
  planned: Publication | Refusal,
  deps: PushDeps,
): Promise<PushAnswer | Refusal> => {
  if (!planned.ok) return planned;
  await deps.publish([planned]);
  return answer(200, { published: planned.topic, summary: planned.summary });
};

const handleRoute = async (
  route: PushRoute,
  tenantInPath: string | undefined,
  request: PushRequest,
  deps: PushDeps,
): Promise<PushAnswer | Refusal> => {
  if (route === 'pubsub') {
    const policy = deps.pubsub as PubSubTokenPolicy;
    const sender = await verifyPubSubToken(
      request.headers.authorization,
      policy,
      request.receivedAt,
    );
    if (!sender.ok) return sender;
    const body = parseBody(request.body);
    if (!('value' in body)) return body;
    return published(planPubSubPush(body.value, sender.tenant), deps);
  }
  if (route === 'azure') {
    const tenant = tenantInPath as string;
    const entra = deps.azureEntraPolicyOf?.(tenant);
    const sender = entra
      ? await verifyEntraToken(tenant, request.headers.authorization, entra, request.receivedAt)
      : verifyAzureSecret(tenant, request.query.token, await deps.azureSecretHashOf?.(tenant));
    if (!sender.ok) return sender;
    const body = parseBody(request.body);
    if (!('value' in body)) return body;
    return published(planAzureWebhook(body.value, sender.tenant, request.receivedAt), deps);
  }
  const ingest = deps.ingest as IngestDeps;
  return route === 'iam' ? ingestAsIamCaller(request, ingest) : ingestWithApiKey(request, ingest);
};

const CONFIGURED: Record<PushRoute, (deps: PushDeps) => boolean> = {
  pubsub: (deps) => deps.pubsub !== undefined,
  azure: (deps) => deps.azureSecretHashOf !== undefined || deps.azureEntraPolicyOf !== undefined,
  ingest: (deps) => deps.ingest?.apiKeys !== undefined,
  iam: (deps) => deps.ingest?.iamCallers !== undefined,
};

export const handlePush = async (request: PushRequest, deps: PushDeps): Promise<PushAnswer> => {
  const found = routeOf(request);
  if (found === undefined || !CONFIGURED[found.route](deps))
    return answer(404, { error: 'not-found', message: `no route ${request.path}` });
  if (request.method !== 'POST')
    return answer(405, { error: 'method-not-allowed', message: 'POST only' }, { allow: 'POST' });
  const bytes = Buffer.byteLength(request.body, 'utf8');
  const outcome =
    bytes > deps.maxBodyBytes
      ? refuse(413, 'too-large', `${bytes} bytes; at most ${deps.maxBodyBytes}`)
      : await handleRoute(found.route, found.tenant, request, deps);
  if ('ok' in outcome && outcome.ok === false) {
    deps.onRefused(found.route, outcome);
    return refusalAnswer(outcome);
  }
  return outcome as PushAnswer;
};
