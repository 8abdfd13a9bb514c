/**
 * What a command needs from the outside world, in one object: output streams, environment, AWS clients,
 * a clock. `run()` builds the real one; tests inject local or mocked clients and a virtual clock.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { annotateErrors } from './errors';

export interface Output {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  /** Relative paths (input files, outputs file) resolve against this directory. */
  cwd: string;
}

export interface AwsClients {
  sns: SNSClient;
  sqs: SQSClient;
  dynamo: DynamoDBClient;
  cloudformation: CloudFormationClient;
  s3: S3Client;
  sts: STSClient;
  costExplorer: CostExplorerClient;
  secretsManager: SecretsManagerClient;
}

/** Test seams: clients, clock, sleep, poll interval. */
export interface CliDeps {
  clients?: Partial<AwsClients>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Interval between ListMessageMoveTasks polls (default 2000 ms). */
  pollMs?: number;
  /** Long-poll wait of peek receives in seconds (default 1). */
  receiveWaitSeconds?: number;
}

/** Where the clients point. Endpoints come from the local run's outputs file only; AWS users use env. */
export interface AwsSettings {
  region?: string;
  endpoints: {
    sqs?: string;
    dynamodb?: string;
    sns?: string;
    cloudformation?: string;
    s3?: string;
    sts?: string;
    secretsManager?: string;
  };
  /** Loopback emulators accept any key: used when the outputs file points at them and no credentials are set. */
  localCredentials: boolean;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export const realSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Lazily created clients from the default credential/region/endpoint chain (`{}` config) plus overrides. */
export class ClientPool {
  private readonly created: { destroy(): void }[] = [];
  private readonly cache: Partial<AwsClients> = {};

  constructor(
    private readonly settings: AwsSettings,
    private readonly injected: Partial<AwsClients> = {},
  ) {
    for (const client of Object.values(injected)) if (client) annotateErrors(client);
  }

  private config(service: keyof AwsSettings['endpoints']) {
    const endpoint = this.settings.endpoints[service];
    return {
      ...(this.settings.region ? { region: this.settings.region } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(endpoint && this.settings.localCredentials ? { credentials: LOCAL_CREDENTIALS } : {}),
    };
  }

  private get<K extends keyof AwsClients>(key: K, create: () => AwsClients[K]): AwsClients[K] {
    const existing = this.cache[key] ?? this.injected[key];
    if (existing) return existing;
    const client = annotateErrors(create());
    this.created.push(client);
    this.cache[key] = client;
    return client;
  }

  get sns(): SNSClient {
    return this.get('sns', () => new SNSClient(this.config('sns')));
  }
  get sqs(): SQSClient {
    return this.get('sqs', () => new SQSClient(this.config('sqs')));
  }
  get dynamo(): DynamoDBClient {
    return this.get('dynamo', () => new DynamoDBClient(this.config('dynamodb')));
  }
  /** Path-style against a local endpoint (an IP address has no bucket subdomains). */
  get s3(): S3Client {
    return this.get(
      's3',
      () =>
        new S3Client({ ...this.config('s3'), forcePathStyle: Boolean(this.settings.endpoints.s3) }),
    );
  }
  /** Who the caller is: period close, reopen and charge void record it. */
  get sts(): STSClient {
    return this.get('sts', () => new STSClient(this.config('sts')));
  }
  /** Cost Explorer answers in us-east-1 (its one endpoint in the aws partition). */
  get costExplorer(): CostExplorerClient {
    return this.get('costExplorer', () => new CostExplorerClient({ region: 'us-east-1' }));
  }
  /** `acquire run` reads the tenant's Azure client secret. */
  get secretsManager(): SecretsManagerClient {
    return this.get(
      'secretsManager',
      () => new SecretsManagerClient(this.config('secretsManager')),
    );
  }
  get cloudformation(): CloudFormationClient {
    return this.get(
      'cloudformation',
      () => new CloudFormationClient(this.config('cloudformation')),
    );
  }

  /** Injected clients belong to the caller; only ours are destroyed. */
  destroy(): void {
    for (const client of this.created.splice(0)) client.destroy();
  }
}
