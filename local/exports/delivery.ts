/**
 * An export line delivered as AWS Data Exports delivers an execution (a legacy CUR CSV: as the legacy
 * CUR delivers an assembly, `legacyCurManifestFor`): the data files under the
 * execution's folder of the tenant's export prefix, then the manifest (`manifestFor`), whose
 * object-created event is what starts ingestion. Delivering an execution again re-delivers its manifest;
 * its data files are not rewritten (same bytes: a chunk worker may be reading them), and different bytes
 * under an execution id already delivered are refused — a re-export needs an execution id of its own.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { inspectExportFile, manifestColumns } from '../../cli/operations/export-files';
import type { ExportSourceConfig } from '../../contract/export-sources';
import { detectColumnFormat } from '../../lambda/core/exports/column-format';
import { legacyCurManifestFor } from '../../lambda/core/exports/legacy-cur-manifest';
import { REQUIRED_FOCUS_COLUMNS, manifestFor } from '../../lambda/core/exports/manifest';
import { exportPrefixOf } from './sources';

/** The export name of every local export (the CLI's `export put` default too). */
export const LOCAL_EXPORT_NAME = 'focus';

export interface ExportDelivery {
  tenant: string;
  billingPeriod: string;
  executionId: string;
  /** Absolute paths; the format is the extension's. */
  files: string[];
  /** Line of the --input file. */
  line?: number;
  note?: string;
  /** The export's name (its source); `LOCAL_EXPORT_NAME` when absent. */
  exportName?: string;
}

export interface Delivered {
  manifestKey: string;
  dataFileKeys: string[];
  /** The execution was delivered before in this run: only its manifest was written again. */
  repeated: boolean;
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const columnsOf = async (paths: readonly string[]): Promise<string[]> => {
  try {
    return manifestColumns(await Promise.all(paths.map((path) => inspectExportFile(path))));
  } catch {
    // A file the pipeline cannot read is delivered all the same: its execution fails with the reason.
    return [...REQUIRED_FOCUS_COLUMNS];
  }
};

export class ExportDeliverer {
  private readonly written = new Map<string, string>();
  private readonly executions = new Set<string>();

  constructor(
    private readonly options: {
      s3: S3Client;
      bucket: string;
      sources: readonly ExportSourceConfig[];
    },
  ) {}

  async deliver(delivery: ExportDelivery): Promise<Delivered> {
    const { s3, bucket } = this.options;
    const contents = await Promise.all(
      delivery.files.map(async (path) => {
        try {
          return await readFile(path);
        } catch (error) {
          throw new Error(
            `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
          );
        }
      }),
    );
    const names = delivery.files.map((path) => basename(path));
    const twice = names.find((name, index) => names.indexOf(name) !== index);
    if (twice !== undefined)
      throw new Error(`two files named ${twice}: the files of one execution need distinct names`);
    const spec = {
      bucket,
      prefix: exportPrefixOf(this.options.sources, delivery.tenant),
      exportName: delivery.exportName ?? LOCAL_EXPORT_NAME,
      billingPeriod: delivery.billingPeriod,
      executionId: delivery.executionId,
      columns: await columnsOf(delivery.files),
      dataFileNames: names,
    };
    // A legacy CUR CSV goes in the legacy CUR's layout (the period folder's manifest), the rest as Data Exports.
    const manifest =
      detectColumnFormat(spec.columns) === 'cur-legacy-csv'
        ? legacyCurManifestFor(spec)
        : manifestFor(spec);
    const executionKey = `${delivery.tenant}|${delivery.billingPeriod}|${delivery.executionId}`;
    const repeated = this.executions.has(executionKey);
    const hashes = contents.map(sha256);
    manifest.dataFileKeys.forEach((key, index) => {
      const before = this.written.get(key);
      if (before !== undefined && before !== hashes[index])
        throw new Error(
          `execution ${delivery.executionId} of ${delivery.tenant} ${delivery.billingPeriod} was already delivered with another ${names[index]}: give the re-export its own executionId`,
        );
    });
    for (const [index, key] of manifest.dataFileKeys.entries()) {
      if (this.written.has(key)) continue;
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: contents[index] }));
      this.written.set(key, hashes[index]);
    }
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: manifest.manifestKey,
        Body: manifest.json,
        ContentType: 'application/json',
      }),
    );
    this.executions.add(executionKey);
    return { manifestKey: manifest.manifestKey, dataFileKeys: manifest.dataFileKeys, repeated };
  }
}
