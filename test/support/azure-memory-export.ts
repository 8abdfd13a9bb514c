/**
 * An Azure export and our export bucket in memory, for units of the copy pass and its handler: runs
 * built from the documented manifest (test/fixtures/azure), one per month given.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  AzureContainerPort,
  AzureCursorPort,
  ExportBucketPort,
} from '../../lambda/core/acquisition/azure-export-copy';
import type { AzureRunCursor, ListedBlob } from '../../lambda/core/acquisition/azure-runs';

const template = JSON.parse(
  readFileSync(join(__dirname, '../fixtures/azure/manifest.json'), 'utf8'),
) as Record<string, Record<string, unknown>>;

/** The container of `exportFolder` holding one complete run per month (`YYYY-MM`), in that order. */
export const memoryContainer = (
  exportFolder: string,
  months: readonly string[],
): AzureContainerPort & { blobs: Map<string, string> } => {
  const blobs = new Map<string, string>();
  months.forEach((month, index) => {
    const runId = `00000000-0000-0000-0000-00000000000${index + 1}`;
    const folder = `${exportFolder}${month.replace('-', '')}01/${runId}/`;
    const part = `${folder}part_0_0001.csv`;
    blobs.set(part, `bytes of ${month}`);
    const manifest = {
      ...template,
      runInfo: {
        ...template.runInfo,
        runId,
        submittedTime: `${month}-20T18:33:0${index}Z`,
        startDate: `${month}-01T00:00:00`,
        endDate: `${month}-19T00:00:00`,
      },
      blobs: [{ blobName: part, byteCount: `bytes of ${month}`.length }],
    };
    blobs.set(`${folder}manifest.json`, JSON.stringify(manifest));
  });
  const listed = (name: string, text: string): ListedBlob => ({
    name,
    size: text.length,
    etag: `"${name.length}"`,
    lastModified: '2024-12-01T00:00:00.000Z',
  });
  return {
    blobs,
    list: async (prefix) =>
      [...blobs].filter(([name]) => name.startsWith(prefix)).map(([n, t]) => listed(n, t)),
    readText: async (name) => {
      const text = blobs.get(name);
      if (text === undefined) throw new Error(`no blob ${name}`);
      return text;
    },
  };
};

export const memoryBucket = (container: {
  blobs: Map<string, string>;
}): ExportBucketPort & { objects: Map<string, { text: string; sourceEtag?: string }> } => {
  const objects = new Map<string, { text: string; sourceEtag?: string }>();
  return {
    objects,
    head: async (key) => {
      const object = objects.get(key);
      return object && { size: object.text.length, sourceEtag: object.sourceEtag };
    },
    readText: async (key) => objects.get(key)?.text,
    putText: async (key, text) => void objects.set(key, { text }),
    copyBlob: async (blob, key) =>
      void objects.set(key, { text: container.blobs.get(blob.name) ?? '', sourceEtag: blob.etag }),
  };
};

export const memoryCursor = (): AzureCursorPort & { at?: AzureRunCursor } => {
  const cursor: AzureCursorPort & { at?: AzureRunCursor } = {
    read: async () => cursor.at,
    advance: async ({ submittedTime, runId }) => {
      cursor.at = { submittedTime, runId };
    },
  };
  return cursor;
};
