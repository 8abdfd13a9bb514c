/**
 * The provider's own totals for AWS: Cost Explorer `GetCostAndUsage`, one query per payer and period —
 * monthly granularity, grouped by `LINKED_ACCOUNT`, `TimePeriod.End` exclusive (the first day of the
 * next month), every page followed (`NextPageToken`; each page is one billed request).
 *
 * Metric: `NetUnblendedCost`, the export path's amount rule (core/formats/cost-cur.ts books the net
 * unblended cost, which is what the FOCUS export calls BilledCost): unamortized, after discounts,
 * including tax, credits and refunds (no filter excludes a record type). `Estimated` on the period's
 * result marks a figure that is not final.
 *
 * Throttling (`ThrottlingException`, `LimitExceededException`) is retried with the repo's one back-off
 * (dynamo-kit/backoff.ts); any other error surfaces.
 */
import {
  GetCostAndUsageCommand,
  type CostExplorerClient,
  type GetCostAndUsageCommandOutput,
} from '@aws-sdk/client-cost-explorer';
import { toDecimal } from '../core/decimal';
import { nextPeriod } from '../core/periods';
import type { ProviderAnswer, ProviderFigure } from '../core/reconciliation/reconcile';
import { jitteredBackoff, type Backoff } from './dynamo-kit/backoff';

export const COST_EXPLORER_METRIC = 'NetUnblendedCost';
const THROTTLING = new Set(['ThrottlingException', 'LimitExceededException']);
/** Attempts of one page request before throttling is an error of the run. */
export const COST_EXPLORER_ATTEMPTS = 6;

export interface CostExplorerTotalsOptions {
  client: CostExplorerClient;
  /** Between attempts of a throttled request (default: 200 ms · 2^attempt, at most 5 s, jittered). */
  backoff?: Backoff;
  attempts?: number;
  /** The tenant that owns every account of this payer, if one does (config `reconciliationPayerTenant`). */
  claimedBy?: string;
}

const isThrottling = (error: unknown): boolean =>
  THROTTLING.has((error as { name?: string })?.name ?? '');

export class CostExplorerTotals {
  /** Billed requests made so far (each page is one). */
  requests = 0;
  private readonly backoff: Backoff;
  private readonly attempts: number;

  constructor(private readonly options: CostExplorerTotalsOptions) {
    this.backoff = options.backoff ?? jitteredBackoff({ baseMs: 200, capMs: 5_000 });
    this.attempts = options.attempts ?? COST_EXPLORER_ATTEMPTS;
  }

  private async page(period: string, token?: string): Promise<GetCostAndUsageCommandOutput> {
    for (let attempt = 0; ; attempt++) {
      try {
        this.requests++;
        return await this.options.client.send(
          new GetCostAndUsageCommand({
            TimePeriod: { Start: `${period}-01`, End: `${nextPeriod(period)}-01` },
            Granularity: 'MONTHLY',
            Metrics: [COST_EXPLORER_METRIC],
            GroupBy: [{ Type: 'DIMENSION', Key: 'LINKED_ACCOUNT' }],
            ...(token ? { NextPageToken: token } : {}),
          }),
        );
      } catch (error) {
        if (!isThrottling(error) || attempt + 1 >= this.attempts) throw error;
        await this.backoff(attempt);
      }
    }
  }

  /** The payer's figures of one `yyyy-mm` period, per linked account and currency. */
  async periodTotals(period: string): Promise<ProviderAnswer> {
    const figures: ProviderFigure[] = [];
    let final = true;
    let token: string | undefined;
    do {
      const page = await this.page(period, token);
      for (const result of page.ResultsByTime ?? []) {
        if (result.Estimated) final = false;
        for (const group of result.Groups ?? []) {
          const metric = group.Metrics?.[COST_EXPLORER_METRIC];
          const accountId = group.Keys?.[0];
          if (!metric?.Amount || !metric.Unit || !accountId) continue;
          figures.push({
            accountId,
            period,
            currency: metric.Unit,
            amount: toDecimal(metric.Amount, `${COST_EXPLORER_METRIC}.Amount`),
          });
        }
      }
      token = page.NextPageToken || undefined;
    } while (token);
    return {
      period,
      final,
      ...(this.options.claimedBy ? { claimedBy: this.options.claimedBy } : {}),
      figures,
    };
  }
}
