/**
 * One POST to the usage ingest API, once the caller's tenant and source are known from its credential:
 * validate every event (the cost consumer's parser; a batch is all or nothing), claim the idempotency
 * key, publish, mark the key published, answer. Publishing failures propagate (5xx, the producer
 * retries with the same key and the pending record is published again).
 */
import { isObject, own } from '../formats/fields';
import { costPublication, type Publication } from '../push/publication';
import { refuse, type Refusal } from '../push/refusal';
import {
  canonicalBodyHash,
  decideKnownKey,
  idempotencyKeyProblem,
  type KeyRecord,
} from './idempotency';

export const MAX_BATCH_EVENTS = 100;

export interface IngestCaller {
  readonly tenant: string;
  readonly source: string;
}

export interface IdempotencyStore {
  /** Records the key `pending` with the hash unless a live record exists; returns that record then. */
  claim(scopedKey: string, bodyHash: string): Promise<KeyRecord | undefined>;
  markPublished(scopedKey: string, bodyHash: string, answer: string): Promise<void>;
}

export interface IngestPorts {
  readonly keys: IdempotencyStore;
  publish(publications: readonly Publication[]): Promise<void>;
}

export interface IngestAnswer {
  readonly ok: true;
  readonly status: 200 | 202;
  readonly replayed: boolean;
  readonly body: string;
}

export type IngestResult = IngestAnswer | (Refusal & { readonly key?: string });

/** The key as the store holds it: scoped by tenant and source, so two producers never collide. */
export const scopedIdempotencyKey = (caller: IngestCaller, key: string): string =>
  `ingest#${caller.tenant}#${caller.source}#${key}`;

const eventsOf = (body: unknown): unknown[] | Refusal => {
  if (!isObject(body)) return refuse(400, 'malformed-body', 'expected a JSON object');
  if (!Object.hasOwn(body, 'events')) return [body];
  const events = own(body, 'events');
  if (!Array.isArray(events) || events.length === 0 || events.length > MAX_BATCH_EVENTS)
    return refuse(
      400,
      'malformed-body',
      `events: expected a list of 1 to ${MAX_BATCH_EVENTS} events`,
    );
  return events as unknown[];
};

const publicationsOf = (
  events: unknown[],
  caller: IngestCaller,
  batch: boolean,
): Publication[] | Refusal => {
  const publications: Publication[] = [];
  for (const [index, event] of events.entries()) {
    const planned = costPublication(event, { source: caller.source }, caller.tenant);
    if (!planned.ok)
      return batch ? { ...planned, detail: `events[${index}]: ${planned.detail}` } : planned;
    publications.push(planned);
  }
  return publications;
};

export const ingestEvents = async (
  caller: IngestCaller,
  idempotencyKey: string | undefined,
  body: unknown,
  ports: IngestPorts,
): Promise<IngestResult> => {
  const keyProblem = idempotencyKeyProblem(idempotencyKey);
  if (keyProblem !== undefined) return refuse(400, 'malformed-body', keyProblem);
  const key = idempotencyKey as string;
  const events = eventsOf(body);
  if (!Array.isArray(events)) return events;
  const publications = publicationsOf(events, caller, Object.hasOwn(body as object, 'events'));
  if (!Array.isArray(publications)) return publications;

  const scoped = scopedIdempotencyKey(caller, key);
  const bodyHash = canonicalBodyHash(body);
  const existing = await ports.keys.claim(scoped, bodyHash);
  if (existing !== undefined) {
    const decision = decideKnownKey(existing, bodyHash);
    if (decision.kind === 'conflict')
      return {
        ...refuse(409, 'key-reused', `Idempotency-Key "${key}" was used with another body`),
        key,
      };
    if (decision.kind === 'replay')
      return { ok: true, status: 200, replayed: true, body: decision.answer };
  }
  await ports.publish(publications);
  const answer = JSON.stringify({
    idempotencyKey: key,
    accepted: publications.length,
    events: publications.map((p) => p.messageDeduplicationId),
  });
  await ports.keys.markPublished(scoped, bodyHash, answer);
  return { ok: true, status: 202, replayed: false, body: answer };
};
