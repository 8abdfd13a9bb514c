/**
 * The Azure export copier against Azurite (the customer's container), the local S3 (our export bucket)
 * and DynamoDB Local (the cursor): a pass killed after any step resumes and ends with exactly one
 * complete export, no blob copied twice; an incomplete run is reported and not copied.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { ContainerClient } from '@azure/storage-blob';
import { AzureAcquisitionCursor } from '../../lambda/adapters/azure-acquisition-cursor';
import { AzureBlobContainer } from '../../lambda/adapters/azure-blob-container';
import { AzureExportBucket } from '../../lambda/adapters/azure-export-bucket';
import {
  copyAzureExport,
  type AzureCursorPort,
  type ExportBucketPort,
} from '../../lambda/core/acquisition/azure-export-copy';
import { parseDeliveredManifest } from '../../lambda/core/exports/delivered-manifest';
import { startAzurite, type LocalAzurite } from '../../local/emulators/azurite';
import { localS3ClientConfig, startLocalS3, type LocalS3 } from '../../local/emulators/s3';
import { createLedgerTables, localDynamo } from '../support/aws-local';

const BUCKET = 'exports';
const EXPORT_FOLDER = 'cost-exports/acme-focus-daily/';
const template = JSON.parse(
  readFileSync(join(__dirname, '../fixtures/azure/manifest.json'), 'utf8'),
) as Record<string, Record<string, unknown>>;
const focusCsv = readFileSync(
  join(__dirname, '../fixtures/focus/focus-sample-data-1.1-excerpt.csv'),
);

let azurite: LocalAzurite;
let s3: LocalS3;
/**
 * The copier's client. s3rver does not decode the aws-chunked body the SDK sends for a streamed PUT
 * with a flexible checksum (it stores the chunk framing), so locally the checksum is only sent where
 * S3 requires one; S3 itself takes either.
 */
let copierS3: S3Client;
const dynamo = localDynamo();
let ledgerTable: string;

beforeAll(async () => {
  [azurite, s3] = await Promise.all([startAzurite(), startLocalS3({ buckets: [BUCKET] })]);
  copierS3 = new S3Client({
    ...localS3ClientConfig(s3.endpoint),
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  ({ ledgerTable } = await createLedgerTables(dynamo));
});

afterAll(async () => {
  dynamo.destroy();
  copierS3?.destroy();
  await Promise.all([azurite?.stop(), s3?.stop()]);
});

interface RunSpec {
  runId: string;
  submittedTime: string;
  /** Bytes each partition really has in the container (undefined: not uploaded). */
  parts: (Buffer | undefined)[];
  /** Byte counts the manifest claims (default: the real sizes). */
  claimed?: number[];
}

/** Uploads a run's partitions, then its manifest (as Cost Management writes them). */
const uploadRun = async (container: ContainerClient, spec: RunSpec): Promise<string> => {
  const folder = `${EXPORT_FOLDER}20240901-20240930/${spec.runId.slice(0, 8)}/${spec.runId}/`;
  const blobs = spec.parts.map((bytes, index) => ({
    blobName: `${folder}part_0_000${index + 1}.csv`,
    byteCount: spec.claimed?.[index] ?? bytes?.length ?? 0,
  }));
  for (const [index, bytes] of spec.parts.entries())
    if (bytes) await container.getBlockBlobClient(blobs[index].blobName).uploadData(bytes);
  const manifest = {
    ...template,
    runInfo: { ...template.runInfo, runId: spec.runId, submittedTime: spec.submittedTime },
    blobs,
  };
  await container
    .getBlockBlobClient(`${folder}manifest.json`)
    .uploadData(Buffer.from(JSON.stringify(manifest, null, 2)));
  return folder;
};

class Killed extends Error {}

/** Counts the writes that reach the bucket and the cursor, and dies right after the `killAfter`-th. */
const instrumented = (
  bucket: ExportBucketPort,
  cursor: AzureCursorPort,
  counts: { copies: number; manifests: number; advances: number; writes: number },
  killAfter = Infinity,
) => {
  const step = async <T>(write: () => Promise<T>, count: 'copies' | 'manifests' | 'advances') => {
    const result = await write();
    counts[count]++;
    counts.writes++;
    if (counts.writes >= killAfter) throw new Killed(`killed after write ${counts.writes}`);
    return result;
  };
  return {
    bucket: {
      head: (key: string) => bucket.head(key),
      readText: (key: string) => bucket.readText(key),
      putText: (key: string, text: string) => step(() => bucket.putText(key, text), 'manifests'),
      copyBlob: (blob: { name: string; size: number; etag: string }, key: string) =>
        step(() => bucket.copyBlob(blob, key), 'copies'),
    },
    cursor: {
      read: () => cursor.read(),
      advance: (to: Parameters<AzureCursorPort['advance']>[0]) =>
        step(() => cursor.advance(to), 'advances'),
    },
  };
};

const objectsUnder = async (prefix: string) => {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key as string).sort();
};

const bytesOf = async (key: string): Promise<Buffer> => {
  const response = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(
    await (response.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
};

const wiring = async (name: string) => {
  const container = azurite.client.getContainerClient(name);
  await container.create();
  const source = new AzureBlobContainer(container);
  return {
    container,
    source,
    bucket: new AzureExportBucket(copierS3, BUCKET, source),
    cursor: new AzureAcquisitionCursor({ client: dynamo, ledgerTable, sourceId: `local/${name}` }),
  };
};

const RUN_ID = 'af754a8e-30fc-4ef3-bfc6-71bd1efb8598';
const parts = [focusCsv, Buffer.concat([focusCsv, Buffer.from('\n')])];

describe('Azure export copy, killed after each step', () => {
  // Writes of one run with two partitions: copy, copy, manifest, cursor.
  const WRITES = 4;

  it.each(Array.from({ length: WRITES }, (_, index) => index + 1))(
    'killed after write %i of 4, the next pass ends with exactly one complete export',
    async (killAfter) => {
      const name = `kill-${killAfter}`;
      const prefix = `tenant-${killAfter}`;
      const { container, source, bucket, cursor } = await wiring(name);
      await uploadRun(container, { runId: RUN_ID, submittedTime: '2024-09-20T18:33:03Z', parts });
      const spec = { exportFolder: EXPORT_FOLDER, bucket: BUCKET, prefix };
      const counts = { copies: 0, manifests: 0, advances: 0, writes: 0 };

      await expect(
        copyAzureExport(spec, {
          container: source,
          ...instrumented(bucket, cursor, counts, killAfter),
        }),
      ).rejects.toThrow(Killed);
      const manifestsAfterKill = (await objectsUnder(`${prefix}/`)).filter((key) =>
        key.endsWith('-Manifest.json'),
      );
      // Before its manifest is written a partly copied run is invisible to the planner.
      expect(manifestsAfterKill).toHaveLength(killAfter >= 3 ? 1 : 0);

      const report = await copyAzureExport(spec, {
        container: source,
        ...instrumented(bucket, cursor, counts),
      });

      expect(counts).toEqual({ copies: 2, manifests: 1, advances: 1, writes: 4 });
      expect(report.copied).toHaveLength(killAfter === WRITES ? 0 : 1);
      expect(await cursor.read()).toEqual({
        submittedTime: '2024-09-20T18:33:03.000Z',
        runId: RUN_ID,
      });
      const keys = await objectsUnder(`${prefix}/`);
      const manifestKeys = keys.filter((key) => key.endsWith('-Manifest.json'));
      expect(manifestKeys).toHaveLength(1);
      const manifest = parseDeliveredManifest(
        await bytesOf(manifestKeys[0]).then(String),
        `s3://${BUCKET}/${manifestKeys[0]}`,
      );
      expect(manifest).toMatchObject({ executionId: RUN_ID, billingPeriod: '2024-09' });
      expect(manifest.dataFiles.map((file) => file.key).sort()).toEqual(
        keys.filter((key) => !key.endsWith('-Manifest.json')),
      );
      for (const [index, file] of manifest.dataFiles.entries())
        expect((await bytesOf(file.key)).equals(parts[index])).toBe(true);

      // A third pass has nothing to do.
      const again = await copyAzureExport(spec, {
        container: source,
        ...instrumented(bucket, cursor, counts),
      });
      expect(again.copied).toEqual([]);
      expect(counts.writes).toBe(4);
    },
  );
});

describe('Azure export copy, incomplete runs', () => {
  it('a run with a missing or a short blob is reported and not copied; the cursor stays', async () => {
    const { container, source, bucket, cursor } = await wiring('incomplete');
    await uploadRun(container, {
      runId: '11111111-0000-0000-0000-000000000001',
      submittedTime: '2024-09-20T00:00:00Z',
      parts: [focusCsv, undefined],
      claimed: [focusCsv.length, 100],
    });
    await uploadRun(container, {
      runId: '11111111-0000-0000-0000-000000000002',
      submittedTime: '2024-09-21T00:00:00Z',
      parts: [focusCsv],
      claimed: [focusCsv.length + 1],
    });
    const counts = { copies: 0, manifests: 0, advances: 0, writes: 0 };

    const report = await copyAzureExport(
      { exportFolder: EXPORT_FOLDER, bucket: BUCKET, prefix: 'incomplete' },
      { container: source, ...instrumented(bucket, cursor, counts) },
    );

    expect(report.copied).toEqual([]);
    expect(
      report.incomplete.map(({ run, problems }) => ({
        runId: run.runId,
        problems: problems.map(({ blobName, ...rest }) => ({
          file: blobName.split('/').pop(),
          ...rest,
        })),
      })),
    ).toEqual([
      {
        runId: '11111111-0000-0000-0000-000000000001',
        problems: [{ file: 'part_0_0002.csv', expectedBytes: 100 }],
      },
      {
        runId: '11111111-0000-0000-0000-000000000002',
        problems: [
          {
            file: 'part_0_0001.csv',
            expectedBytes: focusCsv.length + 1,
            listedBytes: focusCsv.length,
          },
        ],
      },
    ]);
    expect(counts.writes).toBe(0);
    expect(await objectsUnder('incomplete/')).toEqual([]);
    expect(await cursor.read()).toBeUndefined();
  });

  it('a re-export of the month is a new execution beside the first; the cursor moves to it', async () => {
    const { container, source, bucket, cursor } = await wiring('rerun');
    const spec = { exportFolder: EXPORT_FOLDER, bucket: BUCKET, prefix: 'rerun' };
    const ports = () => ({
      container: source,
      ...instrumented(bucket, cursor, { copies: 0, manifests: 0, advances: 0, writes: 0 }),
    });
    await uploadRun(container, { runId: RUN_ID, submittedTime: '2024-09-20T18:33:03Z', parts });
    await copyAzureExport(spec, ports());
    const rerun = '22222222-0000-0000-0000-000000000002';
    await uploadRun(container, {
      runId: rerun,
      submittedTime: '2024-09-21T18:33:03Z',
      parts: [focusCsv],
    });

    const report = await copyAzureExport(spec, ports());

    expect(report.copied.map((run) => run.runId)).toEqual([rerun]);
    expect((await objectsUnder('rerun/')).filter((key) => key.endsWith('-Manifest.json'))).toEqual(
      [RUN_ID, rerun]
        .map(
          (runId) =>
            `rerun/acme-focus-daily/metadata/BILLING_PERIOD=2024-09/${runId}/acme-focus-daily-Manifest.json`,
        )
        .sort(),
    );
    expect((await cursor.read())?.runId).toBe(rerun);
  });
});
