import { randomBytes } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { SpoolArchive } from '../../../lambda/adapters/sqs-archive-spool';
import { archiveObjectsOf, type ArchiveObject } from '../../../lambda/core/archive';
import { decodeSpoolMessage } from '../../../lambda/core/archive-spool';

const SPOOL_URL =
  'https://sqs.us-east-1.amazonaws.com/123456789012/billing-dedup-dev-archive-spool';
const sqs = mockClient(SQSClient);
beforeEach(() => sqs.reset());

const objectsOf = (bodies: string[]) =>
  archiveObjectsOf(
    'cost-events',
    bodies.map((body, index) => ({ messageId: `m${index}`, body })),
    bodies.map((_, index) => ({
      messageId: `m${index}`,
      outcome: 'applied' as const,
      evidence: { tenant: index % 2 ? 'acme' : 'globex', period: '2026-11' },
    })),
    new Date('2026-11-03T10:00:00Z'),
  );

const direct = () => {
  const put: ArchiveObject[] = [];
  return {
    put,
    port: {
      put: (objects: readonly ArchiveObject[]) => Promise.resolve(void put.push(...objects)),
    },
  };
};

describe('SpoolArchive', () => {
  it('sends an invocation’s records of every partition as one spool message, nothing to S3', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 's1' });
    const s3 = direct();
    await new SpoolArchive(new SQSClient({}), SPOOL_URL, s3.port).put(
      objectsOf(['{"a":1}', '{"b":2}', '{"c":3}']),
    );
    const sends = sqs.commandCalls(SendMessageCommand);
    expect(sends).toHaveLength(1);
    expect(sends[0].args[0].input.QueueUrl).toBe(SPOOL_URL);
    expect(sends[0].args[0].input.MessageAttributes).toBeUndefined();
    expect(decodeSpoolMessage(sends[0].args[0].input.MessageBody ?? '')).toHaveLength(3);
    expect(s3.put).toEqual([]);
  });

  it('puts a record too large for a message directly and spools the rest', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 's1' });
    const s3 = direct();
    await new SpoolArchive(new SQSClient({}), SPOOL_URL, s3.port).put(
      objectsOf(['{"a":1}', randomBytes(260_000).toString('base64')]),
    );
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
    expect(s3.put.map((object) => object.key)).toEqual([
      expect.stringMatching(/\/oversize-[0-9a-f]{32}\.jsonl\.gz$/),
    ]);
  });

  it('fails when the send fails: the consumer reports the whole batch failed', async () => {
    sqs.on(SendMessageCommand).rejects(Object.assign(new Error('kms'), { name: 'KmsThrottled' }));
    await expect(
      new SpoolArchive(new SQSClient({}), SPOOL_URL, direct().port).put(objectsOf(['{"a":1}'])),
    ).rejects.toThrow('kms');
  });
});
