/**
 * One SDK middleware, applied identically to both implementations' DynamoDB clients:
 *   - counts commands by operation;
 *   - injects `ReturnConsumedCapacity: 'TOTAL'` into every command input at the initialize step and sums
 *     the `ConsumedCapacity` DynamoDB Local reports ("reported");
 *   - computes the billed capacity from the documented rules ("billed"), because DynamoDB Local reports
 *     nothing for failed conditional writes / cancelled transactions and under-counts BatchGetItem misses;
 *   - journals committed ADDs to TOTAL items (for ./verify.ts);
 *   - injects crashes: after the k-th successful write of an invocation the "process dies" — that
 *     response and every later call of that invocation throw, and nothing more reaches DynamoDB.
 */
import {
  DynamoDBClient,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';
import { addClauses, type ChargePutEntry, type JournalUnit, type TotalChangeEntry } from './verify';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);
const WITH_CAPACITY = new Set([...READS, ...WRITES]);

export class Meter {
  readonly requests = new Map<string, number>();
  reportedRcu = 0;
  reportedWcu = 0;
  billedRcu = 0;
  billedWcu = 0;
  failedConditionalWrites = 0;
  cancelledTransactions = 0;
  /** Cancelled only because another request touched an item at the same time (TransactionConflict,
   * no condition failed): the writer retries it. */
  contendedTransactions = 0;
  /** Cancelled transactions by the set of reason codes DynamoDB gave (e.g. `ConditionalCheckFailed+None`). */
  readonly cancellationReasons = new Map<string, number>();
  /** Part of billedWcu that comes from cancelled transactions (the uncertain part of the model). */
  cancelledTransactionWcu = 0;
  readonly journal: JournalUnit[] = [];

  count(operation: string): void {
    this.requests.set(operation, (this.requests.get(operation) ?? 0) + 1);
  }
  totalRequests(): number {
    return [...this.requests.values()].reduce((sum, n) => sum + n, 0);
  }
  byOperation(): Record<string, number> {
    return Object.fromEntries([...this.requests.entries()].sort());
  }
}

/** One request as `bench/race-trace.ts` sees it: who sent it, when, and which charges it wrote or lost. */
export interface TraceEntry {
  /** The execution environment (its fault state, or the meter when there is none). */
  environment: object;
  operation: string;
  sentAt: number;
  doneAt: number;
  ok: boolean;
  /** `pk|sk` of every charge a transaction puts. */
  charges: string[];
  /** `pk|sk` of every charge whose condition failed (a lost race). */
  losers: string[];
}

/** Off unless a script turns it on: every request of every metered client, in order of completion. */
export const requestTrace: { enabled: boolean; entries: TraceEntry[] } = {
  enabled: false,
  entries: [],
};

const chargeKeysOf = (input: unknown): string[] =>
  (
    (input as { TransactItems?: { Put?: { Item?: Record<string, AttributeValue> } }[] })
      .TransactItems ?? []
  ).map((item) => {
    const key = item.Put?.Item;
    return key?.sk?.S?.startsWith('CHARGE#') ? `${key.pk?.S}|${key.sk.S}` : '';
  });

const traced = (
  environment: object,
  operation: string,
  input: unknown,
  sentAt: number,
  error?: unknown,
): void => {
  if (!requestTrace.enabled) return;
  const keys = chargeKeysOf(input);
  const codes = (
    (error as { CancellationReasons?: { Code?: string }[] } | undefined)?.CancellationReasons ?? []
  ).map((reason) => reason.Code);
  requestTrace.entries.push({
    environment,
    operation,
    sentAt,
    doneAt: Date.now(),
    ok: error === undefined,
    charges: keys.filter(Boolean),
    losers: keys.filter((key, index) => key && codes[index] === 'ConditionalCheckFailed'),
  });
};

/** A crash of the invocation's process: injected, never a real error. */
export class InjectedCrash extends Error {
  constructor() {
    super('injected crash: the process died');
    this.name = 'InjectedCrash';
  }
}

/** Per execution environment: its invocation's write count and whether the process is dead. */
export interface FaultState {
  writes: number;
  crashAfterWrite?: number;
  dead: boolean;
}

/** Approximate DynamoDB item size (attribute names + values), the basis of capacity units. */
export const itemSize = (item: Record<string, AttributeValue> | undefined): number => {
  if (!item) return 0;
  const valueSize = (value: AttributeValue): number => {
    if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8');
    if (value.N !== undefined) return Math.ceil(value.N.replace(/[-.]/g, '').length / 2) + 1;
    if (value.B !== undefined) return value.B.length;
    if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
    if (value.SS) return value.SS.reduce((n, s) => n + Buffer.byteLength(s, 'utf8'), 0);
    if (value.NS) return value.NS.reduce((n, s) => n + Math.ceil(s.length / 2) + 1, 0);
    if (value.L) return 3 + value.L.reduce((n, v) => n + 1 + valueSize(v), 0);
    if (value.M) return 3 + itemSize(value.M) + Object.keys(value.M).length;
    return 1;
  };
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + valueSize(value),
    0,
  );
};

const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));

interface CapacityOutput {
  ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
  Responses?: Record<string, unknown[]>;
}

type UpdateInput = {
  TableName?: string;
  Key?: Record<string, AttributeValue>;
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, AttributeValue>;
};

type PutInput = { TableName?: string; Item?: Record<string, AttributeValue> };

/** `TOTAL#00`..`TOTAL#31`: one shard item holding every currency as `total:<CUR>` / `charges:<CUR>`. */
const SHARD_SK = /^TOTAL#\d{2}$/;
const SHARD_TOTAL = /^total:([A-Z]{3})$/;

/**
 * The total changes one committed Update made: one per currency. Two layouts are read: shard items
 * (`ADD #t :x` with `#t` = `total:<CUR>`, one pair per currency) and the single-currency `TOTAL#<CUR>`
 * items (`ADD total :x, charges :y`) the baseline and earlier versions write. Other ADDs on a shard
 * (`seq`, `corrected:<P>:<CUR>`) repeat money already in `total:<CUR>` or carry none.
 */
export const totalChanges = (
  ledgerTable: string,
  update: UpdateInput | undefined,
): TotalChangeEntry[] => {
  if (!update || update.TableName !== ledgerTable || !update.UpdateExpression) return [];
  const sk = update.Key?.sk?.S ?? '';
  if (!sk.startsWith('TOTAL#')) return [];
  const pk = update.Key?.pk?.S ?? '';
  const adds = addClauses(update.UpdateExpression, update.ExpressionAttributeNames);
  const value = (name: string) => {
    const placeholder = adds.get(name);
    return placeholder ? (update.ExpressionAttributeValues?.[placeholder]?.N ?? '0') : '0';
  };
  if (!SHARD_SK.test(sk))
    return adds.has('total')
      ? [
          {
            pk,
            currency: sk.slice('TOTAL#'.length),
            delta: value('total'),
            charges: value('charges'),
          },
        ]
      : [];
  return [...adds.keys()].flatMap((name) => {
    const currency = SHARD_TOTAL.exec(name)?.[1];
    return currency
      ? [{ pk, currency, delta: value(name), charges: value(`charges:${currency}`) }]
      : [];
  });
};

const chargePut = (ledgerTable: string, put: PutInput | undefined): ChargePutEntry | undefined => {
  const item = put?.Item;
  if (!item || put?.TableName !== ledgerTable || !item.sk?.S?.startsWith('CHARGE#'))
    return undefined;
  return {
    pk: item.pk?.S ?? '',
    currency: item.currency?.S ?? '',
    identityKind: item.identityKind?.S ?? '',
    identityId: item.identityId?.S ?? '',
    version: Number(item.version?.N ?? '0'),
  };
};

const recordCommittedWrite = (
  meter: Meter,
  ledgerTable: string,
  operation: string,
  input: unknown,
) => {
  const defined = <T>(values: (T | undefined)[]): T[] =>
    values.filter((v): v is T => v !== undefined);
  let unit: JournalUnit | undefined;
  if (operation === 'UpdateItem')
    unit = { totals: totalChanges(ledgerTable, input as UpdateInput), puts: [] };
  if (operation === 'TransactWriteItems') {
    const items =
      (input as { TransactItems?: { Update?: UpdateInput; Put?: PutInput }[] }).TransactItems ?? [];
    unit = {
      totals: items.flatMap((item) => totalChanges(ledgerTable, item.Update)),
      puts: defined(items.map((item) => chargePut(ledgerTable, item.Put))),
    };
  }
  if (unit && unit.totals.length > 0) meter.journal.push(unit);
};

/** 2 write units per KB per item of a transaction; an item that is not a Put is taken as ≤ 1 KB. */
const transactionWriteUnits = (input: unknown): number =>
  (
    (input as { TransactItems?: { Put?: { Item?: Record<string, AttributeValue> } }[] })
      .TransactItems ?? []
  ).reduce((sum, item) => sum + 2 * writeUnits(itemSize(item.Put?.Item)), 0);

const billSuccess = (meter: Meter, operation: string, input: unknown, output: CapacityOutput) => {
  const consumed = output.ConsumedCapacity;
  const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
    (sum, c) => sum + (c.CapacityUnits ?? 0),
    0,
  );
  if (READS.has(operation)) {
    meter.reportedRcu += units;
    let billed = units;
    if (operation === 'BatchGetItem') {
      // Every requested key is a read (a miss still costs 1 RCU strongly consistent, 0.5 eventually
      // consistent); DynamoDB Local only reports the items it found.
      const requests =
        (input as { RequestItems?: Record<string, { Keys?: unknown[]; ConsistentRead?: boolean }> })
          .RequestItems ?? {};
      let missing = 0;
      for (const [table, request] of Object.entries(requests)) {
        const misses = (request.Keys?.length ?? 0) - (output.Responses?.[table]?.length ?? 0);
        missing += misses * (request.ConsistentRead ? 1 : 0.5);
      }
      billed += missing;
    }
    meter.billedRcu += billed;
  } else if (WRITES.has(operation)) {
    meter.reportedWcu += units;
    // DynamoDB Local reports 2 units per table a transaction touches, whatever its items; DynamoDB bills
    // 2 per KB per item (the same rule as a cancelled transaction below).
    meter.billedWcu += operation === 'TransactWriteItems' ? transactionWriteUnits(input) : units;
  }
};

const billFailure = (meter: Meter, operation: string, input: unknown, error: unknown) => {
  const name = (error as { name?: string }).name;
  if (name === 'ConditionalCheckFailedException' && WRITES.has(operation)) {
    // A failed conditional write consumes WCU for the existing item's size (minimum 1).
    meter.failedConditionalWrites++;
    meter.billedWcu += writeUnits(
      itemSize((error as { Item?: Record<string, AttributeValue> }).Item),
    );
  }
  if (name === 'TransactionCanceledException' && operation === 'TransactWriteItems') {
    // Assumption (upper bound): a cancelled transaction is billed like a committed one, 2 WCU per KB per item.
    meter.cancelledTransactions++;
    const codes = (
      (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []
    ).map((reason) => reason.Code);
    if (codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed'))
      meter.contendedTransactions++;
    const transactItems =
      (
        input as {
          TransactItems?: Record<
            string,
            { Key?: Record<string, AttributeValue>; Item?: Record<string, AttributeValue> }
          >[];
        }
      ).TransactItems ?? [];
    // Which kind of item refused: its sort key up to the first `#` (CHARGE, TOTAL, …) or the dedup claim.
    const kindOf = (index: number) => {
      const request = Object.values(transactItems[index] ?? {})[0];
      const sk = request?.Key?.sk?.S ?? request?.Item?.sk?.S;
      return sk ? sk.split('#')[0] : 'claim';
    };
    const reasons =
      [
        ...new Set(
          codes
            .map((code, index) =>
              code && code !== 'None' ? `${code}@${kindOf(index)}` : undefined,
            )
            .filter(Boolean),
        ),
      ]
        .sort()
        .join('+') || 'unknown';
    meter.cancellationReasons.set(reasons, (meter.cancellationReasons.get(reasons) ?? 0) + 1);
    const units = transactionWriteUnits(input);
    meter.billedWcu += units;
    meter.cancelledTransactionWcu += units;
  }
};

export const meteringMiddleware =
  (
    meter: Meter,
    ledgerTable: () => string,
    fault?: FaultState,
  ): InitializeMiddleware<ServiceInputTypes, ServiceOutputTypes> =>
  (next, context) =>
  async (args) => {
    if (fault?.dead) throw new InjectedCrash();
    const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
    meter.count(operation);
    const input = WITH_CAPACITY.has(operation)
      ? { ...args.input, ReturnConsumedCapacity: 'TOTAL' }
      : args.input;
    let result;
    const sentAt = Date.now();
    try {
      result = await next({ ...args, input: input });
    } catch (error) {
      traced(fault ?? meter, operation, input, sentAt, error);
      billFailure(meter, operation, input, error);
      if (fault?.dead) throw new InjectedCrash();
      throw error;
    }
    traced(fault ?? meter, operation, input, sentAt);
    billSuccess(meter, operation, input, result.output as CapacityOutput);
    if (WRITES.has(operation)) {
      recordCommittedWrite(meter, ledgerTable(), operation, input);
      if (fault) {
        fault.writes++;
        if (fault.crashAfterWrite !== undefined && fault.writes >= fault.crashAfterWrite)
          fault.dead = true;
      }
    }
    if (fault?.dead) throw new InjectedCrash();
    return result;
  };

export const meteredDynamo = (
  endpoint: string,
  meter: Meter,
  ledgerTable: () => string,
  fault?: FaultState,
): DynamoDBClient => {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  client.middlewareStack.add(meteringMiddleware(meter, ledgerTable, fault), {
    step: 'initialize',
    name: 'benchMeter',
    priority: 'high',
  });
  return client;
};
