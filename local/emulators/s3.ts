/**
 * The local S3: `s3rver` in this process on a free loopback port, its objects in a temporary directory
 * removed on stop and on process exit. Object-created events are turned into the event notifications
 * real S3 publishes and handed to the local SNS, filtered by the bucket's notification configuration
 * (see s3-notifications.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { CreateBucketCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws';
import {
  matchesNotificationRule,
  nextSequencer,
  s3EventNotification,
  s3TestEvent,
  S3_NOTIFICATION_SUBJECT,
  type NotificationRule,
  type ObjectCreated,
  type ObjectCreatedEventName,
} from './s3-notifications';

/** What s3rver emits on `event` (one record), as far as it is read here. */
interface S3rverEvent {
  Records: {
    eventName: string;
    eventTime: string;
    s3: { bucket: { name: string }; object: { key: string; size?: number; eTag?: string } };
  }[];
}

interface KoaContext {
  method: string;
  query: Record<string, unknown>;
}
type Middleware = (context: KoaContext, next: () => Promise<unknown>) => Promise<unknown>;

interface S3rverInstance {
  middleware: Middleware[];
  httpServer?: Server;
  on(event: 'event', listener: (event: S3rverEvent) => void): void;
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

/** Whatever publishes to an SNS topic: the in-process `LocalSns` (local/emulators/sns-in-process.ts) fits. */
export interface NotificationPublisher {
  publish(input: { topicArn: string; message: string; subject?: string }): Promise<unknown>;
}

export interface DeliverNotificationsOptions {
  /** Publish S3's `s3:TestEvent` to each topic first, as S3 does when the configuration is put (default true). */
  testEvent?: boolean;
}

export interface LocalS3 {
  endpoint: string;
  port: number;
  /** Where s3rver keeps the objects (removed by `stop` and at process exit). */
  directory: string;
  /** A path-style client with the local credentials. */
  client: S3Client;
  createBucket(name: string): Promise<void>;
  /** Every object-created event of every bucket; returns the unsubscribe function. */
  onObjectCreated(listener: (created: ObjectCreated) => void): () => void;
  /**
   * Publishes the bucket's object-created events to SNS as S3 does for this notification
   * configuration (one message per event and matching configuration, subject "Amazon S3 Notification").
   * Returns the function that removes the wiring.
   */
  deliverNotifications(
    bucket: string,
    rules: NotificationRule[],
    sns: NotificationPublisher,
    options?: DeliverNotificationsOptions,
  ): Promise<() => void>;
  /** Resolves when every notification published so far was accepted; rejects with the ones that failed. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

const moduleRequire = createRequire(__filename);

/**
 * s3rver only accepts its own access key (`S3RVER`); registering the local credentials on its dummy
 * account lets every local client (handlers, CLI, tests) use the same credentials for every emulator.
 */
const acceptLocalCredentials = (): void => {
  const account = moduleRequire('s3rver/lib/models/account') as {
    DUMMY_ACCOUNT?: { createKeyPair?: (accessKeyId: string, secretAccessKey: string) => void };
  };
  if (typeof account.DUMMY_ACCOUNT?.createKeyPair !== 'function')
    throw new Error(
      's3rver internals changed: update acceptLocalCredentials in local/emulators/s3.ts',
    );
  account.DUMMY_ACCOUNT.createKeyPair(
    LOCAL_CREDENTIALS.accessKeyId,
    LOCAL_CREDENTIALS.secretAccessKey,
  );
};

/** The S3 client configuration for the local S3 (path-style: the endpoint is an IP address). */
export const localS3ClientConfig = (endpoint: string): S3ClientConfig => ({
  endpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
  forcePathStyle: true,
});

const liveDirectories = new Set<string>();
let exitHookInstalled = false;
const removeDirectoriesAtExit = (): void => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const directory of liveDirectories) rmSync(directory, { recursive: true, force: true });
  });
};

/** s3rver names a completed multipart upload `ObjectCreated:Post`; S3 names it CompleteMultipartUpload. */
const eventNameOf = (
  emitted: string,
  request: KoaContext | undefined,
): ObjectCreatedEventName | undefined => {
  if (!emitted.startsWith('ObjectCreated:')) return undefined;
  if (emitted === 'ObjectCreated:Post' && request?.method === 'POST' && 'uploadId' in request.query)
    return 'ObjectCreated:CompleteMultipartUpload';
  return emitted as ObjectCreatedEventName;
};

/** Starts s3rver on a free loopback port with these buckets; `stop` closes it and removes its files. */
export const startLocalS3 = async (options: { buckets?: string[] } = {}): Promise<LocalS3> => {
  acceptLocalCredentials();
  const directory = mkdtempSync(join(tmpdir(), 'billing-dedup-s3-'));
  liveDirectories.add(directory);
  removeDirectoriesAtExit();
  const S3rver = moduleRequire('s3rver') as S3rverConstructor;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
  });
  const requests = new AsyncLocalStorage<KoaContext>();
  server.middleware.unshift((context, next) => requests.run(context, next));

  const listeners = new Set<(created: ObjectCreated) => void>();
  const pending = new Set<Promise<unknown>>();
  const failures: unknown[] = [];
  server.on('event', (event) => {
    const record = event.Records[0];
    const eventName = record && eventNameOf(record.eventName, requests.getStore());
    if (!record || !eventName) return;
    const created: ObjectCreated = {
      bucket: record.s3.bucket.name,
      key: record.s3.object.key,
      size: Number(record.s3.object.size ?? 0),
      ...(record.s3.object.eTag === undefined ? {} : { eTag: record.s3.object.eTag }),
      eventName,
      eventTime: record.eventTime,
      sequencer: nextSequencer(),
    };
    for (const listener of listeners) {
      try {
        listener(created);
      } catch (error) {
        failures.push(error);
      }
    }
  });
  const track = (delivery: Promise<unknown>): void => {
    const tracked = delivery.catch((error: unknown) => failures.push(error));
    pending.add(tracked);
    void tracked.finally(() => pending.delete(tracked));
  };

  let port: number;
  try {
    ({ port } = await server.run());
  } catch (error) {
    liveDirectories.delete(directory);
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client(localS3ClientConfig(endpoint));
  let stopped: Promise<void> | undefined;

  const local: LocalS3 = {
    endpoint,
    port,
    directory,
    client,
    createBucket: async (name) => {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    onObjectCreated: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    deliverNotifications: async (bucket, rules, sns, deliveryOptions = {}) => {
      if (deliveryOptions.testEvent ?? true)
        for (const topicArn of new Set(rules.map((rule) => rule.topicArn)))
          await sns.publish({
            topicArn,
            message: JSON.stringify(s3TestEvent(bucket)),
            subject: S3_NOTIFICATION_SUBJECT,
          });
      return local.onObjectCreated((created) => {
        if (created.bucket !== bucket) return;
        for (const rule of rules)
          if (matchesNotificationRule(rule, created.eventName, created.key))
            track(
              sns.publish({
                topicArn: rule.topicArn,
                message: JSON.stringify(s3EventNotification(created, rule.id)),
                subject: S3_NOTIFICATION_SUBJECT,
              }),
            );
      });
    },
    settled: async () => {
      while (pending.size > 0) await Promise.all([...pending]);
      if (failures.length > 0) {
        const errors = failures.splice(0);
        throw new AggregateError(
          errors,
          `${errors.length} S3 event notification(s) could not be delivered: ${errors.map(String).join('; ')}`,
        );
      }
    },
    stop: () =>
      (stopped ??= (async () => {
        listeners.clear();
        client.destroy();
        server.httpServer?.closeAllConnections?.();
        await server.close().catch(() => undefined);
        liveDirectories.delete(directory);
        rmSync(directory, { recursive: true, force: true });
      })()),
  };
  return local;
};
