import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { ENV, DEFAULT_DEDUP_TTL_SECONDS } from '../../contract/environment';
import {
  DEFAULT_PUSH_MAX_BODY_BYTES,
  GOOGLE_JWKS_URL,
  PUSH_ENV,
  REFUSED_AUTH_METRIC,
  pushConfigFromParts,
} from '../../contract/push-endpoint';
import { DynamoCredentials } from '../adapters/api-keys';
import { readFunctionConfig } from '../adapters/function-config';
import { DynamoIngestKeys } from '../adapters/ingest-keys';
import { DynamoRateCounter } from '../adapters/rate-counter';
import { snsPublisher } from '../adapters/sns-publications';
import { createTelemetry } from '../adapters/telemetry';
import { iamCallerBindings, type IamCallerIdentity } from '../core/push/iam-caller';
import { handlePush, type PushDeps, type PushRequest } from '../core/push/route';
import { isAuthRefusal } from '../core/push/refusal';
import { entraJwksUrl } from '../core/push/azure-entra-token';

export interface PushEndpointClients {
  dynamo: DynamoDBClient;
  sns: SNSClient;
  /** The key source of the Pub/Sub verifier; default: Google's JWK set (cached and refreshed by jose). */
  keys?: JWTVerifyGetKey;
  /** The key source of the Azure secure webhook verifier; default: the Entra tenant's JWK set. */
  entraKeys?: JWTVerifyGetKey;
}

const required = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
};

/** Wires the endpoint once per container; clients and the key source are injectable (tests, local run). */
export const createPushEndpointHandler = (
  env: NodeJS.ProcessEnv = process.env,
  clients: PushEndpointClients = { dynamo: new DynamoDBClient({}), sns: new SNSClient({}) },
): ((event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyResultV2>) => {
  const config = pushConfigFromParts(
    required(env, PUSH_ENV.config),
    readFunctionConfig(env).iamCallers,
  );
  if (config === undefined) throw new Error(`${PUSH_ENV.config} enables nothing`);
  const { logger, metrics } = createTelemetry(env);
  const ledgerTable = required(env, ENV.ledgerTableName);
  const credentials = new DynamoCredentials(clients.dynamo, ledgerTable);
  const publish = snsPublisher(clients.sns, {
    alerts: required(env, PUSH_ENV.alertsTopicArn),
    costEvents: env[PUSH_ENV.costTopicArn] || undefined,
    costEventsFifo: env[PUSH_ENV.costTopicFifo] === 'true',
  });
  const pubsub = config.pubsub;
  const entraKeys = new Map<string, JWTVerifyGetKey>();
  const deps: PushDeps = {
    maxBodyBytes: config.maxBodyBytes ?? DEFAULT_PUSH_MAX_BODY_BYTES,
    pubsub: pubsub && {
      audience: pubsub.audience,
      tenantByServiceAccount: pubsub.serviceAccounts,
      keys: clients.keys ?? createRemoteJWKSet(new URL(pubsub.jwksUrl ?? GOOGLE_JWKS_URL)),
    },
    azureSecretHashOf:
      (config.azureTenants ?? []).length > 0
        ? (tenant) =>
            config.azureTenants?.includes(tenant)
              ? credentials.azureSecretHashOf(tenant)
              : Promise.resolve(undefined)
        : undefined,
    azureEntraPolicyOf:
      Object.keys(config.azureEntra ?? {}).length > 0
        ? (tenant) => {
            const entry = Object.hasOwn(config.azureEntra ?? {}, tenant)
              ? config.azureEntra?.[tenant]
              : undefined;
            if (entry === undefined) return undefined;
            const url = entry.jwksUrl ?? entraJwksUrl(entry.entraTenantId);
            let keys = entraKeys.get(url);
            if (keys === undefined) {
              keys = clients.entraKeys ?? createRemoteJWKSet(new URL(url));
              entraKeys.set(url, keys);
            }
            return { ...entry, keys };
          }
        : undefined,
    ingest:
      config.ingest || config.iamCallers
        ? {
            ...(config.ingest ? { apiKeys: credentials } : {}),
            ...(config.iamCallers ? { iamCallers: iamCallerBindings(config.iamCallers) } : {}),
            ports: {
              keys: new DynamoIngestKeys({
                client: clients.dynamo,
                dedupTable: required(env, ENV.dedupTableName),
                ttlSeconds: Number(env[ENV.dedupTtlSeconds] ?? DEFAULT_DEDUP_TTL_SECONDS),
              }),
              publish,
            },
            ...(config.ingestPerMinute !== undefined
              ? {
                  rateLimit: {
                    perMinute: config.ingestPerMinute,
                    counter: new DynamoRateCounter(
                      clients.dynamo,
                      required(env, ENV.dedupTableName),
                    ),
                  },
                }
              : {}),
          }
        : undefined,
    publish,
    onRefused: (route, refusal) => {
      logger.warn('push refused', { route, ...refusal });
      if (!isAuthRefusal(refusal)) return;
      metrics.addMetric(REFUSED_AUTH_METRIC, MetricUnit.Count, 1);
      metrics.publishStoredMetrics();
    },
  };
  return async (event) => {
    const request: PushRequest = {
      method: event.requestContext.http.method,
      path: event.rawPath,
      headers: Object.fromEntries(
        Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
      ),
      query: event.queryStringParameters ?? {},
      body: event.body
        ? event.isBase64Encoded
          ? Buffer.from(event.body, 'base64').toString('utf8')
          : event.body
        : '',
      receivedAt: new Date(event.requestContext.timeEpoch),
      iamCaller: (event.requestContext as { authorizer?: { iam?: IamCallerIdentity } }).authorizer
        ?.iam,
    };
    try {
      const answer = await handlePush(request, deps);
      return { statusCode: answer.status, headers: answer.headers, body: answer.body };
    } catch (error) {
      // Nothing was acknowledged: 503 makes Pub/Sub, Azure and producers deliver again.
      logger.error('push failed; the sender will retry', { error });
      return {
        statusCode: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '5' },
        body: JSON.stringify({ error: 'unavailable', message: 'not published; retry' }),
      };
    }
  };
};

let wired: ReturnType<typeof createPushEndpointHandler> | undefined;
export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyResultV2> => {
  wired ??= createPushEndpointHandler();
  return wired(event);
};
