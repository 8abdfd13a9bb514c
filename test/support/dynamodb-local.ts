/** Moved to the local emulators (local/emulators/dynamodb-sqs.ts, local-aws.ts); re-exported for the tests. */
export { startDynamoDbLocal, type DynamoDbLocal } from '../../local/emulators/dynamodb-sqs';
export { LOCAL_CREDENTIALS } from '../../local/emulators/local-aws';
