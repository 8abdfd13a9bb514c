import type { RejectionCode } from './errors';

/** The one outcome of a record (docs/consumer-core.md#outcomes). `failed` records are retried; every other outcome is acked. */
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

export interface RecordResult {
  messageId: string;
  outcome: Outcome;
  /** Content hash or alert key, when the record got that far. */
  hash?: string;
  /** Why: rejection reason, conflict detail or the transient error's name. */
  reason?: string;
  /** The rejection code of a dead-lettered record. */
  code?: RejectionCode;
  /** Tenant and source of a record that was accepted (parsed and bound): the per-tenant rate metrics. */
  scope?: { tenant: string; source: string };
  /** An export switch of a source another export of its period outranks: that source (a metric). */
  shadowedBy?: string;
}
