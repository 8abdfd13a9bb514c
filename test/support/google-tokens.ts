/** Moved to the local emulators (local/emulators/google-keys.ts); re-exported for the tests. */
export {
  localGoogleKeys,
  pushClaims,
  type LocalGoogleKeys,
  type TokenOptions,
} from '../../local/emulators/google-keys';
