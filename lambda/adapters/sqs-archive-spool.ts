import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ArchiveObject, ArchivePort } from '../core/archive';
import { encodeSpoolMessages } from '../core/archive-spool';

/**
 * The evidence archive through the spool: an invocation's records sent as spool messages (usually one)
 * to the `archive-spool` queue, which the archiver writes to S3. A sent message is durably archived
 * (SQS keeps it until the archiver has stored it). Records too large for a message even alone go
 * directly to S3 through `oversize` (the put of direct mode, at `oversize-` keys).
 */
export class SpoolArchive implements ArchivePort {
  constructor(
    private readonly sqs: SQSClient,
    private readonly spoolUrl: string,
    private readonly oversize: ArchivePort,
  ) {}

  async put(objects: readonly ArchiveObject[]): Promise<void> {
    const { messages, oversize } = encodeSpoolMessages(objects);
    await Promise.all([
      ...messages.map((body) =>
        this.sqs.send(new SendMessageCommand({ QueueUrl: this.spoolUrl, MessageBody: body })),
      ),
      ...(oversize.length > 0 ? [this.oversize.put(oversize)] : []),
    ]);
  }
}
