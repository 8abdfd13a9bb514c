/** Moved to the local emulators (local/emulators/local-aws.ts); re-exported for the tests. */
export { freePort } from '../../local/emulators/local-aws';
