/**
 * The outcomes a consumer records per message (docs/consumer-core.md#outcomes): the functions count
 * them as metrics (`lambda/core/outcomes.ts`, `adapters/telemetry.ts`) and the operations dashboard
 * draws one line per outcome (`lib/constructs/ops-dashboard.ts`), so the list lives here.
 * `failed` records are retried; every other outcome is acked.
 */
export type Outcome =
  | 'applied'
  | 'restated'
  | 'duplicate'
  | 'superseded'
  /** A copy or later version of a charge an operator voided: no effect. */
  | 'voided'
  | 'conflict'
  | 'observed'
  | 'notified'
  | 'rejected'
  | 'failed';

export const OUTCOMES: readonly Outcome[] = [
  'applied',
  'restated',
  'duplicate',
  'superseded',
  'voided',
  'conflict',
  'observed',
  'notified',
  'rejected',
  'failed',
];
