import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';

declare global {
  var __dynamoDbLocal: DynamoDbLocal | undefined;
}

/** One DynamoDB Local for the whole jest run; tests create their own uniquely named tables in it. */
export default async function globalSetup(): Promise<void> {
  const local = await startDynamoDbLocal();
  globalThis.__dynamoDbLocal = local;
  process.env.DYNAMODB_LOCAL_ENDPOINT = local.endpoint;
  process.once('exit', () => local.process.kill('SIGKILL'));
}
