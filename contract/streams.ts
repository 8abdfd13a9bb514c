import type { ServicePublisherId } from './publishers';

interface StreamShape {
  readonly name: string;
  /** Consumer id: function and Powertools service names end with it. */
  readonly consumer: string;
  /** Handler module, relative to the project root. */
  readonly handlerEntry: string;
  readonly outputPrefix: string;
  readonly label: string;
  readonly servicePublishers: readonly ServicePublisherId[];
}

/**
 * Every message stream of the app. `name` is the stream's identity everywhere: the consumer's
 * STREAM_NAME, the topic and queue names, the claim-key prefix in the dedup table, the metric
 * dimension and the CLI's stream argument. `outputPrefix` names its stack outputs and prefixes
 * the ids of its constructs (changing it replaces the deployed topic, queues and function).
 * `servicePublishers` are the AWS services allowed to publish to its topic.
 */
export const STREAMS = {
  costEvents: {
    name: 'cost-events',
    consumer: 'cost-ledger',
    handlerEntry: 'lambda/handlers/cost-ledger.ts',
    outputPrefix: 'CostEvents',
    label: 'Cost events',
    servicePublishers: [],
  },
  budgetAlerts: {
    name: 'budget-alerts',
    consumer: 'budget-alerts',
    handlerEntry: 'lambda/handlers/budget-alerts.ts',
    outputPrefix: 'BudgetAlerts',
    label: 'Budget alerts',
    servicePublishers: ['budgets', 'costAnomalyDetection'],
  },
} as const satisfies Record<string, StreamShape>;

export type StreamDefinition = (typeof STREAMS)[keyof typeof STREAMS];
export type StreamName = StreamDefinition['name'];

export const COST_STREAM = STREAMS.costEvents.name;
export const ALERT_STREAM = STREAMS.budgetAlerts.name;

/** In deployment order: every loop over the streams (stack, CLI, local run) follows it. */
export const STREAM_DEFINITIONS: readonly StreamDefinition[] = Object.values(STREAMS);

export const STREAM_NAMES: readonly StreamName[] = STREAM_DEFINITIONS.map((stream) => stream.name);

export const isStreamName = (value: unknown): value is StreamName =>
  typeof value === 'string' && (STREAM_NAMES as readonly string[]).includes(value);

export const streamNamed = (name: StreamName): StreamDefinition =>
  STREAM_DEFINITIONS.find((stream) => stream.name === name) as StreamDefinition;

/**
 * The billing-export pipeline's two queues (docs/exports.md). `kind: 'export'` keeps them out of
 * STREAM_DEFINITIONS: the loops over the message streams (publish, ledger, local report) do not apply
 * to them. `topic` says whether the stream has its own SNS topic (the chunk queue is fed by the planner).
 */
export const EXPORT_STREAMS = {
  exportDeliveries: {
    kind: 'export',
    name: 'export-deliveries',
    consumer: 'export-planner',
    handlerEntry: 'lambda/handlers/export-planner.ts',
    outputPrefix: 'ExportDeliveries',
    label: 'Export deliveries',
    topic: true,
  },
  exportChunks: {
    kind: 'export',
    name: 'export-chunks',
    consumer: 'export-chunk',
    handlerEntry: 'lambda/handlers/export-chunk.ts',
    outputPrefix: 'ExportChunks',
    label: 'Export chunks',
    topic: false,
  },
} as const;

export type ExportStreamDefinition = (typeof EXPORT_STREAMS)[keyof typeof EXPORT_STREAMS];
export const EXPORT_STREAM_DEFINITIONS: readonly ExportStreamDefinition[] =
  Object.values(EXPORT_STREAMS);

/**
 * The archive spool (docs/architecture.md "Evidence archive"): the consumers' archive records, sent by
 * them (no topic), written to the archive bucket by the archiver, one object per partition of many
 * invocations. Not a message stream: the loops over the streams and export queues do not apply to it.
 */
export const ARCHIVE_SPOOL = {
  kind: 'archive',
  name: 'archive-spool',
  consumer: 'archiver',
  handlerEntry: 'lambda/handlers/archiver.ts',
  outputPrefix: 'ArchiveSpool',
  label: 'Archive spool',
} as const;
