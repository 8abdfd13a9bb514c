import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { ENV, readPositiveInteger, readRequired } from '../../contract/environment';
import { DynamoPeriods } from '../adapters/dynamo-periods';
import { scanAutoCloseCandidates } from '../adapters/period-candidates';
import { createTelemetry, type Telemetry } from '../adapters/telemetry';
import { autoCloseReason, latestDuePeriod, planAutoClose } from '../core/auto-close';
import { PeriodError } from '../core/errors';
import type { PeriodKey, PeriodPort } from '../core/ports';
import { onFirstInvocation } from './consumer';
import { RemainingTime } from './remaining-time';

/** Left unused at the end of an invocation: a close in flight finishes, the rest waits for tomorrow. */
export const AUTO_CLOSE_TIME_MARGIN_MS = 30_000;

export interface AutoCloseSummary {
  latestDuePeriod: string;
  candidates: number;
  closed: number;
  /** Closed meanwhile by someone else. */
  alreadyClosed: number;
  /** Due but reopened by an operator: left to the operator. */
  reopened: number;
  /** Not attempted: the invocation ran out of time (the next run takes them). */
  deferred: number;
  failed: { period: PeriodKey; error: string }[];
}

export interface AutoCloseDeps {
  dynamo: DynamoDBClient;
  now?: () => number;
  periods?: PeriodPort;
  telemetry?: Telemetry;
}

/**
 * The scheduled auto-close: every account-period with data of any kind (stream totals, export
 * snapshots) that ended `AUTO_CLOSE_AFTER_DAYS` days ago or more and was never closed is closed, through the same period adapter as `billing-dedup period
 * close`, recorded as closed by `auto-close:<function name>`. Idempotent: a re-run (or EventBridge's
 * retry) finds them closed. Fails the invocation when a close failed, so the error alarm and retry see it.
 */
export const createAutoCloseHandler = (
  env: NodeJS.ProcessEnv = process.env,
  deps: AutoCloseDeps = { dynamo: new DynamoDBClient({}) },
) => {
  const ledgerTable = readRequired(env, ENV.ledgerTableName);
  const afterDays = readPositiveInteger(env, ENV.autoCloseAfterDays, 0);
  if (afterDays < 1) throw new Error(`Environment variable ${ENV.autoCloseAfterDays} is not set`);
  const now = deps.now ?? Date.now;
  // The closes' back-off stops short of the running invocation's end.
  const remaining = new RemainingTime();
  const periods =
    deps.periods ??
    new DynamoPeriods({ client: deps.dynamo, ledgerTable, now, remainingMs: remaining.ms });
  const telemetry = deps.telemetry ?? createTelemetry(env);
  const by = `auto-close:${env.AWS_LAMBDA_FUNCTION_NAME ?? 'local'}`;

  return async (
    _event: ScheduledEvent | Record<string, never>,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<AutoCloseSummary> => {
    remaining.use(context);
    const at = now();
    const latest = latestDuePeriod(at, afterDays);
    const candidates = await scanAutoCloseCandidates(deps.dynamo, ledgerTable, latest);
    const plan = planAutoClose(candidates, at, afterDays);
    const summary: AutoCloseSummary = {
      latestDuePeriod: latest,
      candidates: candidates.length,
      closed: 0,
      alreadyClosed: 0,
      reopened: plan.reopened.length,
      deferred: 0,
      failed: [],
    };
    for (const [index, key] of plan.due.entries()) {
      if (context.getRemainingTimeInMillis() < AUTO_CLOSE_TIME_MARGIN_MS) {
        summary.deferred = plan.due.length - index;
        break;
      }
      try {
        const status = await periods.close(key, by, autoCloseReason(key.period, afterDays));
        summary.closed++;
        telemetry.logger.info('period closed', { ...key, totalsAtClose: status.totalsAtClose });
      } catch (error) {
        if (error instanceof PeriodError && error.code === 'already-closed') {
          summary.alreadyClosed++;
          continue;
        }
        summary.failed.push({ period: key, error: (error as Error).message ?? String(error) });
        telemetry.logger.error('period not closed', { ...key, error: (error as Error).message });
      }
    }
    telemetry.logger.info('auto-close', { ...summary, failed: summary.failed.length });
    if (summary.failed.length > 0)
      throw new Error(
        `auto-close: ${summary.failed.length} period(s) not closed (first: ${JSON.stringify(summary.failed[0])}); they are retried on the next run`,
      );
    return summary;
  };
};

export const handler = onFirstInvocation(() => createAutoCloseHandler());
