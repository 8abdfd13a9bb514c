/**
 * The one place that turns a failure into what an operator reads: a single line that names the fix, and an
 * exit code. 0 = success, 1 = operational error (AWS said no, or could not be reached), 2 = usage error
 * (bad flags, missing configuration), 3 = the command ran to the end but some input lines were rejected.
 */
import type { MiddlewareStack } from '@smithy/types';

export const EXIT = { ok: 0, operational: 1, usage: 2, rejectedLines: 3, differences: 4 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.operational,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong or missing flags/configuration: exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

/** IAM action behind each SDK command the CLI sends (for "missing permission" messages). */
export const IAM_ACTION_OF_COMMAND: Readonly<Record<string, string>> = {
  DescribeStacksCommand: 'cloudformation:DescribeStacks',
  PublishBatchCommand: 'sns:Publish',
  PublishCommand: 'sns:Publish',
  GetQueueAttributesCommand: 'sqs:GetQueueAttributes',
  ReceiveMessageCommand: 'sqs:ReceiveMessage',
  ChangeMessageVisibilityBatchCommand: 'sqs:ChangeMessageVisibility',
  ChangeMessageVisibilityCommand: 'sqs:ChangeMessageVisibility',
  ListDeadLetterSourceQueuesCommand: 'sqs:ListDeadLetterSourceQueues',
  StartMessageMoveTaskCommand: 'sqs:StartMessageMoveTask',
  ListMessageMoveTasksCommand: 'sqs:ListMessageMoveTasks',
  QueryCommand: 'dynamodb:Query',
  ScanCommand: 'dynamodb:Scan',
  GetItemCommand: 'dynamodb:GetItem',
  BatchGetItemCommand: 'dynamodb:BatchGetItem',
  GetCallerIdentityCommand: 'sts:GetCallerIdentity',
  PutObjectCommand: 's3:PutObject',
  ListObjectsCommand: 's3:ListBucket',
  CreateMultipartUploadCommand: 's3:PutObject',
  UploadPartCommand: 's3:PutObject',
  CompleteMultipartUploadCommand: 's3:PutObject',
};

const ACCESS_DENIED = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'AuthorizationError',
  'AuthorizationErrorException',
  'UnauthorizedOperation',
  'AWS.SimpleQueueService.AccessDenied',
  'KMSAccessDenied',
  'KMSAccessDeniedException',
  'KmsAccessDenied',
]);

const MISSING_CREDENTIALS = new Set(['CredentialsProviderError']);
const BAD_CREDENTIALS = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
  'TokenRefreshRequired',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'InvalidAccessKeyId',
  'InvalidToken',
]);

const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'Throttled',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'ProvisionedThroughputExceededException',
  'KMSThrottling',
  'KMSThrottlingException',
  'KmsThrottled',
  'AWS.SimpleQueueService.RequestThrottled',
]);

const TRANSIENT = new Set([
  'InternalError',
  'InternalFailure',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
]);

const QUEUE_MISSING = new Set([
  'QueueDoesNotExist',
  'AWS.SimpleQueueService.NonExistentQueue',
  'NonExistentQueue',
]);

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ECONNRESET',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  Code?: string;
  $command?: string;
  $fault?: string;
  $retryable?: { throttling?: boolean };
  $metadata?: { httpStatusCode?: number };
  address?: string;
  port?: number;
}

const asErrorLike = (error: unknown): ErrorLike =>
  typeof error === 'object' && error !== null ? error : { message: String(error) };

const firstLine = (text: string | undefined): string =>
  (text ?? '')
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim() ?? '';

const errorName = (error: ErrorLike): string => error.Code ?? error.name ?? error.code ?? 'Error';

/** Throttling (retry with backoff and a lower rate). */
export const isThrottling = (error: unknown): boolean => {
  const e = asErrorLike(error);
  return (
    THROTTLING.has(errorName(e)) ||
    e.$retryable?.throttling === true ||
    e.$metadata?.httpStatusCode === 429
  );
};

/** Worth retrying as is: throttling or a server-side fault. */
export const isRetryable = (error: unknown): boolean => {
  const e = asErrorLike(error);
  return (
    isThrottling(error) ||
    TRANSIENT.has(errorName(e)) ||
    (e.$fault === 'server' && (e.$metadata?.httpStatusCode ?? 500) >= 500)
  );
};

/** `…is not authorized to perform: sqs:ReceiveMessage on resource: arn…` → the action and the resource. */
const deniedAction = (message: string): { action?: string; resource?: string } => {
  const action = /perform:?\s+([A-Za-z0-9-]+:[A-Za-z0-9*]+)/.exec(message)?.[1];
  const resource = /on resource:?\s+(\S+)/.exec(message)?.[1]?.replace(/[.,;]$/, '');
  return { action, resource };
};

/**
 * Failure → one line naming the fix + exit code. Knows the AWS error families the CLI meets: access denied,
 * missing/expired credentials, missing region, throttling, unknown queue/table/topic/stack, unreachable
 * endpoint. Anything else keeps the service's own first line.
 */
export const describeError = (error: unknown): { message: string; exitCode: number } => {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  const e = asErrorLike(error);
  const name = errorName(e);
  const text = firstLine(e.message);
  const action = e.$command ? IAM_ACTION_OF_COMMAND[e.$command] : undefined;

  if (ACCESS_DENIED.has(name) || /not authorized to perform/i.test(text)) {
    const found = deniedAction(text);
    const missing = found.action ?? action;
    return {
      message:
        `Access denied${missing ? `: missing permission ${missing}` : ''}` +
        `${found.resource ? ` on ${found.resource}` : ''}; grant it to the role or user ` +
        `you are using (see "Permissions" in docs/operations.md)`,
      exitCode: EXIT.operational,
    };
  }
  if (MISSING_CREDENTIALS.has(name) || /could not load credentials/i.test(text)) {
    const detail = /profile/i.test(text) ? ` (${text.replace(/\.$/, '')})` : '';
    return {
      message:
        `No AWS credentials found${detail}: set AWS_PROFILE (then \`aws sso login\` if it is an SSO profile) ` +
        'or export AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY',
      exitCode: EXIT.operational,
    };
  }
  if (BAD_CREDENTIALS.has(name) || /(token|credentials?|session).*(expired|invalid)/i.test(text)) {
    return {
      message:
        `AWS credentials are expired or invalid (${name}): refresh them ` +
        '(`aws sso login --profile <profile>`, or export a new AWS_SESSION_TOKEN) and run again',
      exitCode: EXIT.operational,
    };
  }
  if (/region is missing/i.test(text)) {
    return {
      message:
        'No AWS region configured: set AWS_REGION (or a profile with a region) or pass --region',
      exitCode: EXIT.usage,
    };
  }
  if (isThrottling(error)) {
    return {
      message:
        `Throttled by AWS (${name}${action ? ` on ${action}` : ''}) even after retries: ` +
        'lower --rate / --max-per-second or retry later; request a quota increase if it persists',
      exitCode: EXIT.operational,
    };
  }
  if (QUEUE_MISSING.has(name) || /queue does not exist/i.test(text)) {
    return {
      message: `Queue does not exist (${text}): check --stack / --dlq-url / --queue-url and the region`,
      exitCode: EXIT.operational,
    };
  }
  if (
    name === 'ResourceNotFoundException' &&
    e.$command?.match(/^(Query|Scan|GetItem|BatchGetItem)Command$/)
  ) {
    return {
      message: `Ledger table not found (${text}): check --stack / --table and the region`,
      exitCode: EXIT.operational,
    };
  }
  if (name === 'NotFound' || name === 'NotFoundException') {
    return {
      message: `Topic not found (${text}): check --stack / --topic and the region`,
      exitCode: EXIT.operational,
    };
  }
  const stack = /Stack with id (\S+) does not exist/.exec(text)?.[1];
  if (stack) {
    return {
      message: `Stack ${stack} does not exist in this account/region: check --stack and AWS_REGION`,
      exitCode: EXIT.operational,
    };
  }
  if ((e.code && NETWORK_CODES.has(e.code)) || NETWORK_CODES.has(name)) {
    const where = e.address ? ` ${e.address}${e.port ? `:${e.port}` : ''}` : '';
    return {
      message:
        `Cannot reach the AWS endpoint (${e.code ?? name}${where}): check your network and ` +
        'AWS_ENDPOINT_URL*; for the local run, check that it is running and the outputs file is current',
      exitCode: EXIT.operational,
    };
  }
  return { message: `${name}: ${text || 'unknown error'}`, exitCode: EXIT.operational };
};

type AnyStack = MiddlewareStack<object, object>;

/** Tags every error a client throws with the command that failed (`$command`), for `describeError`. */
export const annotateErrors = <C extends { middlewareStack: unknown }>(client: C): C => {
  (client.middlewareStack as AnyStack).add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (typeof error === 'object' && error !== null && !('$command' in error))
          Object.assign(error, { $command: context.commandName });
        throw error;
      }
    },
    { step: 'initialize', name: 'billingDedupCliErrorContext', override: true },
  );
  return client;
};
