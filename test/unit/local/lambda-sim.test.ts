import { lambdaContext, sqsRecord, sqsRecordFromMessage } from '../../../local/runtime/lambda-sim';

describe('Lambda simulation kit', () => {
  it('a context counts down to its deadline and never below zero', () => {
    const context = lambdaContext({ functionName: 'fn', deadline: Date.now() + 5_000 });
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(4_000);
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(5_000);
    expect(context.invokedFunctionArn).toBe('arn:aws:lambda:us-east-1:123456789012:function:fn');
    expect(
      lambdaContext({ functionName: 'fn', deadline: Date.now() - 1 }).getRemainingTimeInMillis(),
    ).toBe(0);
  });

  it('a record takes its region from the queue ARN and FIFO attributes only when FIFO', () => {
    const standard = sqsRecord({
      messageId: 'm1',
      body: 'b',
      queueArn: 'arn:aws:sqs:eu-west-1:1:q',
    });
    expect(standard.awsRegion).toBe('eu-west-1');
    expect(standard.receiptHandle).toBe('rh-m1');
    expect(standard.attributes.MessageGroupId).toBeUndefined();
    const fifo = sqsRecord({
      messageId: 'm2',
      body: 'b',
      queueArn: 'arn:aws:sqs:us-east-1:1:q.fifo',
      receiveCount: 3,
      fifo: { groupId: 'g', deduplicationId: 'd', sequenceNumber: '7' },
    });
    expect(fifo.attributes).toMatchObject({
      ApproximateReceiveCount: '3',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'd',
      SequenceNumber: '7',
    });
  });

  it('a received SQS message becomes the record Lambda would hand over', () => {
    const record = sqsRecordFromMessage(
      {
        MessageId: 'id-1',
        ReceiptHandle: 'handle-1',
        Body: '{"a":1}',
        MD5OfBody: 'md5',
        Attributes: {
          MessageGroupId: 'acme#1',
          SentTimestamp: '42',
          DeadLetterQueueSourceArn: 'arn:src',
        },
        MessageAttributes: {
          tenant: { DataType: 'String', StringValue: 'acme' },
          blob: { DataType: 'Binary', BinaryValue: Buffer.from('hi') },
        },
      },
      { queueArn: 'arn:aws:sqs:us-east-1:123456789012:cost-events.fifo', receiveCount: 2 },
    );
    expect(record).toMatchObject({
      messageId: 'id-1',
      receiptHandle: 'handle-1',
      body: '{"a":1}',
      md5OfBody: 'md5',
      eventSource: 'aws:sqs',
      attributes: {
        ApproximateReceiveCount: '2',
        SentTimestamp: '42',
        MessageGroupId: 'acme#1',
        DeadLetterQueueSourceArn: 'arn:src',
      },
      messageAttributes: {
        tenant: { stringValue: 'acme', dataType: 'String' },
        blob: { binaryValue: Buffer.from('hi').toString('base64'), dataType: 'Binary' },
      },
    });
  });
});
