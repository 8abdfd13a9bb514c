/**
 * The kit's back-off is the one in `core/backoff.ts` (the cost core pauses with it too, and the core
 * may not import adapters): re-exported here so adapters take everything DynamoDB from the kit.
 */
export {
  jitteredBackoff,
  pauseCeilingMs,
  type Backoff,
  type BackoffOptions,
} from '../../core/backoff';
