/**
 * The push endpoint in the local run. Before the synth: the local Google key set served over HTTP and
 * the local HTTP API listening on a free port, so the stack is synthesized with `pushEndpoint` naming
 * that URL as the Pub/Sub audience and that key set as `pubsub.jwksUrl` (the verifier's configurable key
 * source), and the sample's AWS roles bound in `iamCallers`, their local sessions the HTTP API's IAM
 * route verifies signatures with. After the environment is up: the sample's API keys are issued (hashed, as
 * `billing-dedup keys create` does) and its Azure webhook tokens stored, and the template's push
 * function — its own environment, the run's DynamoDB (with faults) and in-process SNS — is attached to
 * the HTTP API.
 */
import { randomBytes } from 'node:crypto';
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV } from '../../contract/environment';
import { PUSH_ENDPOINT_KEY, PUSH_ENV } from '../../contract/push-endpoint';
import { DynamoApiKeyAdmin } from '../../lambda/adapters/api-key-admin';
import { LEDGER_PK, LEDGER_SK, webhookSecretItemKey } from '../../lambda/adapters/table-layout';
import { secretHash } from '../../lambda/core/push/azure-secret';
import { createPushEndpointHandler } from '../../lambda/handlers/push-endpoint';
import { localGoogleKeys, serveJwks, type LocalGoogleKeys } from '../emulators/google-keys';
import { startLocalHttpApi, type LocalHttpApi } from '../emulators/http-api';
import type { LocalIamIdentity } from '../emulators/iam-authorizer';
import { LOCAL_REGION } from '../emulators/local-aws';
import type { HandlerClients } from '../runtime/functions';
import { invocationScope } from '../runtime/invocations';
import type { LocalPlan } from '../runtime/template';
import { iamRoleArn, iamSessionArn, type PushSample } from '../scenarios/push-requests';
import type { Cleanups } from './cleanups';
import type { PushCredentials } from './push';

export interface PushStandIns {
  readonly api: LocalHttpApi;
  readonly audience: string;
  readonly google: LocalGoogleKeys;
  readonly forger: LocalGoogleKeys;
  readonly jwksUrl: string;
  /** The CDK context that deploys the endpoint for the sample. */
  readonly context: Record<string, string>;
  /** What the sample's AWS callers sign with. */
  readonly iam: NonNullable<PushCredentials['iam']>;
}

/** A local session per sample role: random keys only this run knows. */
const localSessions = (sample: PushSample): Map<string, LocalIamIdentity> =>
  new Map(
    sample.iamRoles.map((role) => [
      role.name,
      {
        accessKeyId: `ASIALOCAL${randomBytes(6).toString('hex').toUpperCase()}`,
        secretAccessKey: randomBytes(30).toString('base64'),
        sessionToken: randomBytes(24).toString('base64'),
        userArn: iamSessionArn(role),
        accountId: role.account,
      },
    ]),
  );

export const startPushStandIns = async (
  sample: PushSample,
  cleanups: Cleanups,
): Promise<PushStandIns> => {
  const google = await localGoogleKeys();
  const forger = await localGoogleKeys();
  const jwks = await serveJwks(google.jwks);
  cleanups.add(() => jwks.stop());
  const sessions = localSessions(sample);
  const api = await startLocalHttpApi({
    iam: { region: LOCAL_REGION, paths: ['/v1/iam/events'], identities: [...sessions.values()] },
  });
  cleanups.add(() => api.stop());
  const audience = `${api.url}/pubsub`;
  return {
    api,
    audience,
    google,
    forger,
    jwksUrl: jwks.url,
    context: {
      [PUSH_ENDPOINT_KEY]: JSON.stringify({
        pubsub: { audience, serviceAccounts: sample.serviceAccounts, jwksUrl: jwks.url },
        azureTenants: sample.azureTenants,
        ingest: true,
        iamCallers: sample.iamRoles.flatMap((role) =>
          role.bound ? [{ principal: iamRoleArn(role), ...role.bound }] : [],
        ),
        ingestPerMinute: sample.ingestPerMinute,
      }),
    },
    iam: { region: LOCAL_REGION, sessions },
  };
};

/** Issues the sample's API keys and stores its Azure webhook tokens' hashes in the ledger table. */
export const issuePushCredentials = async (
  dynamo: DynamoDBClient,
  ledgerTable: string,
  sample: PushSample,
): Promise<PushCredentials> => {
  const admin = new DynamoApiKeyAdmin(dynamo, ledgerTable);
  const apiKeys = new Map<string, string>();
  for (const { name, tenant, source } of sample.apiKeys)
    apiKeys.set(name, (await admin.create(tenant, source)).key);
  const azureTokens = new Map<string, string>();
  for (const tenant of sample.azureTenants) {
    const token = randomBytes(32).toString('hex');
    const { pk, sk } = webhookSecretItemKey(tenant);
    await dynamo.send(
      new PutItemCommand({
        TableName: ledgerTable,
        Item: {
          [LEDGER_PK]: { S: pk },
          [LEDGER_SK]: { S: sk },
          secretHash: { S: secretHash(token) },
        },
      }),
    );
    azureTokens.set(tenant, token);
  }
  return { apiKeys, azureTokens };
};

/** Invocation ids of the push function in the handler log (the pollers count from 1). */
const PUSH_INVOCATION_IDS = 1_000_000;

/** Attaches the template's push function to the local HTTP API; its ledger table name. */
export const attachPushFunction = (options: {
  plan: LocalPlan;
  api: LocalHttpApi;
  clients: HandlerClients;
}): { ledgerTable: string; functionName: string } => {
  const fn = options.plan.functions.find((candidate) => candidate.environment[PUSH_ENV.config]);
  if (fn === undefined) throw new Error('the synthesized stack has no push endpoint function');
  const handler = createPushEndpointHandler(
    { ...fn.environment, AWS_LAMBDA_FUNCTION_NAME: fn.functionName },
    { dynamo: options.clients.dynamo, sns: options.clients.sns },
  );
  // Each request is an invocation: its log lines go to the handler log, tagged, never to stdout.
  let invocations = 0;
  options.api.attach((event) =>
    invocationScope.run(
      {
        invocationId: PUSH_INVOCATION_IDS + ++invocations,
        stream: 'push-endpoint',
        abandoned: false,
        results: [],
      },
      () => handler(event),
    ),
  );
  return { ledgerTable: fn.environment[ENV.ledgerTableName], functionName: fn.functionName };
};
