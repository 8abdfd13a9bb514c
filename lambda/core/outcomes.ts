import type { Outcome } from '../../contract/outcomes';
import type { RejectionCode } from './errors';
import type { DriftSummary } from './exports/provisional-drift';

/** The one outcome of a record: the list is shared with the dashboard (contract/outcomes.ts). */
export { OUTCOMES, type Outcome } from '../../contract/outcomes';

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
  /** The tenant and period the evidence archive files the record under, once known. */
  evidence?: { tenant: string; period: string };
  /** An export switch that superseded stream charges: how far the stream was from the export (metrics). */
  provisionalDrift?: DriftSummary;
}
