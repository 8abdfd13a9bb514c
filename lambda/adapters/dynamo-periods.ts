/**
 * Billing periods in the ledger table (docs/ledger.md): the PERIOD item and its audit records in the
 * account-period's partition, and the closed stamp on every total shard, which is what refuses commits.
 * The port the CLI and the export and auto-close functions talk to; close/reopen, void and status each
 * live in their module, the reads the cost consumer needs in `dynamo-period-states.ts`.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_TOTAL_SHARDS } from '../../contract/environment';
import type { CloseOptions, PeriodKey, PeriodPort, PeriodStatus, VoidRequest } from '../core/ports';
import { jitteredBackoff } from './dynamo-kit/backoff';
import { DynamoPeriodStates } from './dynamo-period-states';
import { close, reopen } from './period-close';
import { list, status } from './period-status';
import type { PeriodTable } from './period-table';
import { voidCharge } from './period-void';

export interface DynamoPeriodsOptions {
  client: DynamoDBClient;
  ledgerTable: string;
  now?: () => number;
  /** Shards writers use (1..32, default 8); a void adds to one of them. */
  totalShards?: number;
  /** Close/reopen/void transactions tried before giving up as busy (default 20). */
  maxAttempts?: number;
  /** Back-off between attempts (injected so tests need not wait). */
  pause?: (attempt: number) => Promise<void>;
  /** The invocation's remaining time, when known: the back-off never pauses past it. */
  remainingMs?: () => number;
}

const DEFAULT_MAX_ATTEMPTS = 20;
/** Back-off between contended attempts: up to 10 ms · 2^attempt, at most 1 s, jittered. */
const BACKOFF = { baseMs: 10, capMs: 1_000 };

export class DynamoPeriods extends DynamoPeriodStates implements PeriodPort {
  private readonly table: PeriodTable;

  constructor(options: DynamoPeriodsOptions) {
    super(options);
    this.table = {
      client: options.client,
      table: options.ledgerTable,
      now: options.now ?? Date.now,
      totalShards: options.totalShards ?? DEFAULT_TOTAL_SHARDS,
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      pause:
        options.pause ??
        jitteredBackoff({
          ...BACKOFF,
          ...(options.remainingMs ? { remainingMs: options.remainingMs } : {}),
        }),
    };
  }

  close(key: PeriodKey, by: string, reason: string, options?: CloseOptions): Promise<PeriodStatus> {
    return close(this.table, key, by, reason, options);
  }

  reopen(key: PeriodKey, by: string, reason: string): Promise<PeriodStatus> {
    return reopen(this.table, key, by, reason);
  }

  status(key: PeriodKey): Promise<PeriodStatus> {
    return status(this.table, key);
  }

  list(filter: { tenant: string; accountId?: string }): Promise<PeriodStatus[]> {
    return list(this.table, filter);
  }

  voidCharge(
    input: VoidRequest,
  ): Promise<{ outcome: 'voided' | 'already-voided'; bookedIn: string }> {
    return voidCharge(this.table, input);
  }
}
