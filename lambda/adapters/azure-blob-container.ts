/**
 * The customer's Blob Storage container, read with `@azure/storage-blob`: listing (names, sizes,
 * ETags, last-write times), a manifest's text, a blob's bytes as a stream.
 */
import type { Readable } from 'node:stream';
import type { ContainerClient } from '@azure/storage-blob';
import type { AzureContainerPort } from '../core/acquisition/azure-export-copy';
import type { ListedBlob } from '../core/acquisition/azure-runs';

const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

export class AzureBlobContainer implements AzureContainerPort {
  /** Requests sent so far (list pages, downloads). */
  requests = 0;

  constructor(private readonly container: ContainerClient) {}

  async list(prefix: string): Promise<ListedBlob[]> {
    const blobs: ListedBlob[] = [];
    for await (const page of this.container
      .listBlobsFlat(prefix === '' ? {} : { prefix })
      .byPage({ maxPageSize: 5000 })) {
      this.requests++;
      for (const blob of page.segment.blobItems)
        blobs.push({
          name: blob.name,
          size: Number(blob.properties.contentLength ?? 0),
          etag: String(blob.properties.etag),
          lastModified: blob.properties.lastModified.toISOString(),
        });
    }
    return blobs;
  }

  async readText(name: string): Promise<string> {
    const client = this.container.getBlobClient(name);
    this.requests++;
    const bytes = await client.downloadToBuffer();
    if (bytes.length > MAX_MANIFEST_BYTES)
      throw new Error(`${name}: a manifest of ${bytes.length} bytes is too large`);
    return bytes.toString('utf8');
  }

  /** The blob's bytes at this ETag (a blob rewritten since it was listed fails the read). */
  async open(name: string, etag: string): Promise<Readable> {
    this.requests++;
    const response = await this.container
      .getBlobClient(name)
      .download(0, undefined, { conditions: { ifMatch: etag } });
    if (!response.readableStreamBody) throw new Error(`${name}: download returned no body`);
    return response.readableStreamBody as Readable;
  }
}
