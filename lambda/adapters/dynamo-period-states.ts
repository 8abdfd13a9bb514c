/**
 * What the cost consumer reads of billing periods: whether an account-period is closed, and whose stream
 * charges its export supersedes. Apart from `DynamoPeriods`, so that the consumer's bundle holds none of
 * the close, reopen, void and status code it never runs (docs/benchmarks.md, "Cold start").
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Supersession } from '../core/ledger-total';
import type { PeriodKey, PeriodState, PeriodStatePort } from '../core/ports';
import { readSupersession } from './period-supersession';
import { stateOf } from './period-table';

export interface DynamoPeriodStatesOptions {
  client: DynamoDBClient;
  ledgerTable: string;
}

export class DynamoPeriodStates implements PeriodStatePort {
  constructor(private readonly reader: DynamoPeriodStatesOptions) {}

  stateOf(key: PeriodKey): Promise<PeriodState> {
    return stateOf({ client: this.reader.client, table: this.reader.ledgerTable }, key);
  }

  supersession(key: PeriodKey): Promise<Supersession | undefined> {
    return readSupersession(this.reader.client, this.reader.ledgerTable, key);
  }
}
