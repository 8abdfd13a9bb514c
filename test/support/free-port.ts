/** Moved to the local runtime (local/emulators.ts); re-exported for the tests. */
export { freePort } from '../../local/emulators/local-aws';
