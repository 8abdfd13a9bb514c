/**
 * What the handlers run with locally: their own AWS clients (DynamoDB with the fault plan attached,
 * SQS for dead letters, the local SNS for notifications), Powertools in dev mode with metrics off,
 * and the handler log sink. Everything is undone by the run's cleanups.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { localS3ClientConfig } from '../emulators/s3';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../emulators/local-aws';
import type { FaultPlan } from '../runtime/faults';
import type { HandlerClients } from '../runtime/functions';
import { HandlerLogSink } from '../runtime/invocations';
import type { Cleanups } from './cleanups';
import type { StartedEnvironment } from './environment';

const POWERTOOLS_LOCAL_ENV: Record<string, string> = {
  POWERTOOLS_DEV: 'true',
  POWERTOOLS_METRICS_DISABLED: 'true',
};

/** Sets variables for the run; the cleanup restores what was there before (or removes them). */
export const setProcessEnv = (variables: Record<string, string>, cleanups: Cleanups): void => {
  const saved = Object.fromEntries(
    Object.keys(variables).map((name) => [name, process.env[name]] as const),
  );
  Object.assign(process.env, variables);
  cleanups.add(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
};

export const startHandlerRuntime = (options: {
  started: StartedEnvironment;
  faults: FaultPlan;
  cleanups: Cleanups;
  /** Handler log lines; undefined: dropped. */
  handlerLogFile?: string;
}): HandlerClients => {
  const { started, faults, cleanups } = options;
  const { environment } = started;
  const dynamo = new DynamoDBClient({
    endpoint: environment.endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  faults.attach(dynamo);
  const sqs = new SQSClient({
    endpoint: environment.endpoints.sqs,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const sns = started.localSns.client();
  const s3 = new S3Client(localS3ClientConfig(environment.endpoints.s3));
  cleanups.add(() => {
    dynamo.destroy();
    sqs.destroy();
    sns.destroy();
    s3.destroy();
  });
  setProcessEnv(POWERTOOLS_LOCAL_ENV, cleanups);
  const sink = new HandlerLogSink({
    file: options.handlerLogFile,
    minLevel: environment.plan.functions[0]?.environment.POWERTOOLS_LOG_LEVEL ?? 'INFO',
  });
  sink.install();
  cleanups.add(() => sink.uninstall());
  return { dynamo, sqs, sns, s3 };
};
