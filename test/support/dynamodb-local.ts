/** Moved to the local runtime (local/emulators.ts); re-exported for the tests. */
export { LOCAL_CREDENTIALS, startDynamoDbLocal, type DynamoDbLocal } from '../../local/emulators';
