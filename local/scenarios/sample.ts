/** What the sample generator produces: the messages to publish and the ground truth to judge them by. */
import type { LedgerTotal } from '../../lambda/adapters/ledger-reader';
import { STREAM_NAMES, type StreamName } from '../../contract/streams';

export type Topic = StreamName;
export const TOPICS: readonly Topic[] = STREAM_NAMES;

export interface SampleMessage {
  topic: Topic;
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
}

/** Two charges with one eventId and different content: whichever the ledger books first wins. */
export interface ConflictPair {
  first: { message: string; effect: ChargeEffect };
  second: { message: string; effect: ChargeEffect };
}

export interface GroundTruth {
  ledger: LedgerTotal[];
  notificationKeys: string[];
  /** Messages each DLQ must hold at the end: poison messages and the losing copy of each conflict. */
  deadLetters: Record<Topic, number>;
  conflicts: ConflictPair[];
}

export interface Sample {
  messages: SampleMessage[];
  truth: GroundTruth;
}

/** One publish of a message: its text and message attributes. */
export interface Rendered {
  message: string;
  attributes?: Record<string, string>;
}
