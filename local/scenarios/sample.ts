/** What the sample generator produces: the messages to publish and the ground truth to judge them by. */
import type { LedgerTotal } from '../../lambda/adapters/ledger-reader';
import { STREAM_NAMES, type StreamName } from '../../contract/streams';
import type { PushSample } from './push-requests';
import type { ExpectedReconciliation, SampleReconciliation } from './reconciliation';

export type Topic = StreamName;
export const TOPICS: readonly Topic[] = STREAM_NAMES;

export interface SampleMessage {
  topic: Topic;
  /** Published to this tenant's own topic instead of the stream's shared one (docs/threat-model.md). */
  tenantTopic?: string;
  /** The published message text (JSON text or plain text). */
  message: string;
  attributes?: Record<string, string>;
  groupId?: string;
  deduplicationId?: string;
  /** What this message is, for diagnostics. */
  note?: string;
  /** Line of the --input file it came from. */
  line?: number;
}

export interface ChargeEffect {
  tenant: string;
  accountId: string;
  period: string;
  currency: string;
  amount: string;
  /** A stream charge's source, where it may be superseded by an export (`aws`); absent: never. */
  source?: string;
  /** An export row's: the provider whose stream charges of the account-period its snapshot supersedes. */
  supersedes?: string;
}

/** Two charges with one eventId and different content: whichever the ledger books first wins. */
export interface ConflictPair {
  first: { message: string; effect: ChargeEffect };
  second: { message: string; effect: ChargeEffect };
}

/** One row of a sample export file: a valid charge, or a row the pipeline must reject. */
export interface SampleExportRow {
  /** `null-cost`: BilledCost is NULL; `malformed`: a CSV record with a cell missing. */
  kind: 'valid' | 'null-cost' | 'malformed';
  account: string;
  currency: string;
  /** Exact decimal text; null for a NULL cell. */
  amount: string | null;
  /** null: a `NULL` ServiceName cell (a valid row). */
  service: string | null;
  /** Hours since the start of the billing period. */
  hour: number;
}

/** An export execution of the sample: its files by name (the format is the extension's). */
export interface SampleExportDelivery {
  tenant: string;
  billingPeriod: string;
  executionId: string;
  files: { name: string; rows: SampleExportRow[] }[];
  note?: string;
  /** FOCUS when absent; a CUR export otherwise (`local/exports/cur-files.ts`). */
  format?: 'cur2' | 'legacy-cur';
  /** The export's name (its source); the local default when absent. */
  exportName?: string;
}

/** An execution as the report's `exports` must show it at the end of the run. */
export interface ExpectedExport {
  tenant: string;
  billingPeriod: string;
  executionId: string;
  status: 'current' | 'superseded' | 'incomplete' | 'failed';
  rows: number;
  rejectedRows: number;
}

/** A re-export's change of one account-currency total (the first export of a period changes nothing). */
export interface ExpectedExportChange {
  tenant: string;
  billingPeriod: string;
  accountId: string;
  currency: string;
  /** Exact decimal, new total minus old. */
  delta: string;
}

export interface GroundTruth {
  ledger: LedgerTotal[];
  /** Every export execution delivered, in tenant, period, execution order (none: no exports). */
  exports?: ExpectedExport[];
  /** What each re-export changed; notified when |delta| reaches the diff threshold. */
  exportChanges?: ExpectedExportChange[];
  notificationKeys: string[];
  /** Messages each DLQ must hold at the end: poison messages and the losing copy of each conflict. */
  deadLetters: Record<Topic, number>;
  conflicts: ConflictPair[];
  /** The report's `reconciliation` rows at the end (none: the sample reconciles nothing). */
  reconciliation?: ExpectedReconciliation[];
}

/** A billing period the sample closes, and the reason it records. */
export interface SampleClose {
  tenant: string;
  accountId: string;
  period: string;
  reason: string;
}

/**
 * After every message and export settled: `before` is published, the period is closed once that
 * settled too, then `after` (late charges, a late restatement, a late duplicate) is published.
 */
export interface SampleClosing {
  before: SampleMessage[];
  close: SampleClose;
  after: SampleMessage[];
}

export interface Sample {
  messages: SampleMessage[];
  /** Export executions, delivered in this order while the messages are published. */
  exports?: SampleExportDelivery[];
  closing?: SampleClosing;
  /** Provider totals told to the local stand-in after the closing, then a period reconciled. */
  reconciliation?: SampleReconciliation;
  /** Requests to the push endpoint (Pub/Sub, Azure, ingest API), sent while the messages are published. */
  pushes?: PushSample;
  truth: GroundTruth;
}

/** One publish of a message: its text and message attributes. */
export interface Rendered {
  message: string;
  attributes?: Record<string, string>;
}
