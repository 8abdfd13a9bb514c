import {
  CliError,
  describeError,
  EXIT,
  isRetryable,
  isThrottling,
  UsageError,
} from '../../cli/errors';

const awsError = (name: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, ...extra });

describe('describeError', () => {
  it('passes our own errors through with their exit code', () => {
    expect(describeError(new CliError('boom'))).toEqual({
      message: 'boom',
      exitCode: EXIT.operational,
    });
    expect(describeError(new UsageError('bad flag'))).toEqual({
      message: 'bad flag',
      exitCode: EXIT.usage,
    });
  });

  it('names the missing permission from the AWS message', () => {
    const error = awsError(
      'AccessDenied',
      'User: arn:aws:iam::123456789012:user/ops is not authorized to perform: sqs:StartMessageMoveTask on resource: arn:aws:sqs:eu-west-1:123456789012:dlq because no identity-based policy allows the sqs:StartMessageMoveTask action',
    );
    const { message, exitCode } = describeError(error);
    expect(message).toMatch(
      /missing permission sqs:StartMessageMoveTask on arn:aws:sqs:eu-west-1:123456789012:dlq/,
    );
    expect(message).toMatch(/grant it/);
    expect(exitCode).toBe(EXIT.operational);
  });

  it('names the permission from the failed command when the message does not', () => {
    const error = awsError('AuthorizationError', 'Forbidden', { $command: 'PublishBatchCommand' });
    expect(describeError(error).message).toMatch(/missing permission sns:Publish/);
    const dynamo = awsError('AccessDeniedException', 'denied', { $command: 'QueryCommand' });
    expect(describeError(dynamo).message).toMatch(/missing permission dynamodb:Query/);
  });

  it('tells missing credentials from expired ones', () => {
    expect(
      describeError(
        awsError('CredentialsProviderError', 'Could not load credentials from any providers'),
      ).message,
    ).toMatch(/^No AWS credentials found.*AWS_PROFILE/);
    for (const name of [
      'ExpiredToken',
      'ExpiredTokenException',
      'InvalidClientTokenId',
      'UnrecognizedClientException',
    ]) {
      const { message, exitCode } = describeError(
        awsError(name, 'The security token included in the request is expired'),
      );
      expect(message).toMatch(/expired or invalid.*aws sso login/);
      expect(exitCode).toBe(EXIT.operational);
    }
  });

  it('maps a missing region to a usage error', () => {
    expect(describeError(new Error('Region is missing'))).toEqual({
      message: expect.stringMatching(/AWS_REGION.*--region/),
      exitCode: EXIT.usage,
    });
  });

  it('maps throttling to "lower the rate"', () => {
    const { message } = describeError(
      awsError('ThrottlingException', 'Rate exceeded', { $command: 'PublishBatchCommand' }),
    );
    expect(message).toMatch(
      /Throttled by AWS \(ThrottlingException on sns:Publish\).*lower --rate/,
    );
  });

  it('maps unknown queues, tables, topics and stacks to the flag that fixes them', () => {
    expect(
      describeError(awsError('QueueDoesNotExist', 'The specified queue does not exist.')).message,
    ).toMatch(/--dlq-url/);
    expect(
      describeError(
        awsError('ResourceNotFoundException', 'Requested resource not found', {
          $command: 'QueryCommand',
        }),
      ).message,
    ).toMatch(/Ledger table not found.*--table/);
    // A statement reads with Query and BatchGetItem at once: whichever fails first names the flag.
    for (const command of ['BatchGetItemCommand', 'GetItemCommand'])
      expect(
        describeError(
          awsError('ResourceNotFoundException', 'Cannot do operations on a non-existent table', {
            $command: command,
          }),
        ).message,
      ).toMatch(/Ledger table not found.*--table/);
    expect(describeError(awsError('NotFound', 'Topic does not exist')).message).toMatch(/--topic/);
    expect(
      describeError(awsError('ValidationError', 'Stack with id x does not exist')).message,
    ).toMatch(/Stack x does not exist.*--stack/);
  });

  it('maps an unreachable endpoint', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 4566,
    });
    expect(describeError(error).message).toMatch(
      /Cannot reach the AWS endpoint \(ECONNREFUSED 127\.0\.0\.1:4566\)/,
    );
  });

  it('keeps the first line of anything else', () => {
    expect(describeError(awsError('WeirdError', 'first line\nsecond line'))).toEqual({
      message: 'WeirdError: first line',
      exitCode: EXIT.operational,
    });
    expect(describeError('a string')).toEqual({ message: 'Error: a string', exitCode: 1 });
  });

  it('every message is a single line', () => {
    const samples = [
      awsError('AccessDenied', 'x\ny'),
      awsError('CredentialsProviderError', 'Could not load credentials\nfrom any providers'),
      awsError('Throttling', 'slow\ndown'),
      new Error('Region is missing'),
    ];
    for (const sample of samples) expect(describeError(sample).message).not.toContain('\n');
  });
});

describe('retry classification', () => {
  it('treats throttling and server faults as retryable, client faults not', () => {
    expect(isThrottling(awsError('Throttled', 'x'))).toBe(true);
    expect(isThrottling(awsError('Whatever', 'x', { $metadata: { httpStatusCode: 429 } }))).toBe(
      true,
    );
    expect(isRetryable(awsError('InternalError', 'x'))).toBe(true);
    expect(
      isRetryable(awsError('X', 'x', { $fault: 'server', $metadata: { httpStatusCode: 503 } })),
    ).toBe(true);
    expect(isRetryable(awsError('InvalidParameter', 'x', { $fault: 'client' }))).toBe(false);
  });
});
