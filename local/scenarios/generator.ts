/**
 * The sample stream of `npm start` (seeded, deterministic) and its ground truth.
 *
 * Several tenants and accounts over two months: FOCUS rows (AWS and Google Cloud, usage, credits and
 * corrections booked by BillingPeriodStart), canonical events with eventIds, restated line items (versions
 * published out of order), snake_case events of the original design; duplicate publishes with reordered
 * keys, reformatted numbers (`12.30` / `12.3` / `"12.3"`), new transport and export metadata, other
 * whitespace; publisher retries (same dedup id: dropped by the FIFO topic) and replays (new dedup id:
 * the consumer's dedup must catch them); eventId conflicts; poison messages; repeated GCP budget
 * notifications with rising cost, GCP periodic updates, AWS Budgets texts and cost anomalies; and the
 * hidden-state cases; billing exports (FOCUS files delivered to the export bucket: a re-export, a
 * manifest delivered twice, CSV, CSV.gz and Parquet parts, NULL cells and bad rows); and, at the end,
 * a billing period closed and the late charges, restatement and duplicate that arrive after it; and
 * last, the provider's totals for a month and its reconciliation; and requests to the push endpoint
 * (Pub/Sub pushes, Azure webhooks, the usage ingest API), sent over HTTP while the messages are published. Each input family is a scenario in `local/scenarios/`; this module only decides
 * their order, which is part of what a seed reproduces.
 */
import { eventIdConflicts } from './conflicts';
import { costPoison } from './cost-poison';
import { forgedTenants } from './forged-tenant';
import { SampleDraft } from './draft';
import { hiddenStateCases } from './hidden-state';
import { alertPoison } from './alert-poison';
import { billingExports } from './billing-exports';
import { curExports } from './cur-exports';
import { monthlyAlerts } from './monthly-alerts';
import { monthlyCharges } from './monthly-charges';
import { lateCharges } from './late-charges';
import { pushSample } from './push-requests';
import { providerReconciliation } from './reconciliation';
import type { SampleLatePolicy } from './truth';
import type { Sample } from './sample';

export {
  TOPICS,
  type ChargeEffect,
  type ConflictPair,
  type ExpectedExport,
  type GroundTruth,
  type Sample,
  type SampleMessage,
  type Topic,
} from './sample';
export { ledgerOf } from './truth';

export interface SampleOptions {
  seed: number;
  /** Logical charges per account and month (default 60: about 2,000 messages in all). */
  chargesPerAccountMonth?: number;
  /** The stage's `lateChargePolicy` the truth expects for the late charges (default roll-forward). */
  lateChargePolicy?: SampleLatePolicy;
  /**
   * Requests to the push endpoint (default true). Their burst waits for the next rate window (up to a
   * minute): tests about something else leave them out.
   */
  pushes?: boolean;
}

export const generateSample = (options: SampleOptions): Sample => {
  const draft = new SampleDraft(options.seed);
  monthlyCharges(draft, options.chargesPerAccountMonth ?? 60);
  eventIdConflicts(draft);
  costPoison(draft);
  hiddenStateCases(draft);
  monthlyAlerts(draft);
  alertPoison(draft);
  forgedTenants(draft);
  // Draws nothing from the random stream: the messages above and below are those of before.
  const pushes = options.pushes === false ? undefined : pushSample(draft.truth);
  const focus = billingExports(options.seed, draft.truth);
  const cur = curExports(options.seed, draft.truth);
  const { changes } = focus;
  // The CUR exports right after the first FOCUS delivery: the FOCUS re-export stays the last step.
  const deliveries = [focus.deliveries[0], ...cur.deliveries, ...focus.deliveries.slice(1)];
  const expected = [...focus.expected, ...cur.expected];
  const closing = lateCharges(options.seed, draft.truth, options.lateChargePolicy);
  const built = draft.build({ exports: deliveries, expected, changes });
  // Last: the provider's totals are built from the final ledger truth (the closing's effects included).
  const reconciliation = providerReconciliation(built.truth);
  return {
    ...built,
    closing,
    ...(pushes ? { pushes } : {}),
    reconciliation: reconciliation.reconciliation,
    truth: { ...built.truth, reconciliation: reconciliation.expected },
  };
};
