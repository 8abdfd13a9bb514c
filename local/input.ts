/**
 * `--input FILE.jsonl`: one message per line,
 * `{"topic": "cost-events" | "budget-alerts", "message": <JSON value or string>, "attributes"?: {…},
 *   "groupId"?: "…", "deduplicationId"?: "…"}`.
 * A bad line is reported with its line number and skipped; the run still happens, and its verdict fails
 * (a partly published input must never look like a clean run). A file without any message is a usage
 * error: an empty export must not pass as a clean run that "published 0".
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { decodeRecord } from '../lambda/core/envelope';
import { parseCostEvent } from '../lambda/core/formats';
import { fifoGroupId, fifoPublishIds, isValidFifoId } from '../lambda/core/keys';
import { UsageError } from './faults';
import { TOPICS, type SampleMessage, type Topic } from './generator';
import { parseJsonExact, stringifyJsonExact } from '../lambda/core/json';

export interface InputProblem {
  line: number;
  error: string;
}

export interface InputFile {
  messages: SampleMessage[];
  lines: number;
  skipped: InputProblem[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const parseLine = (text: string): SampleMessage => {
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new Error('expected a JSON object');
  const { topic, message, attributes, groupId, deduplicationId } = value;
  if (!TOPICS.includes(topic as Topic))
    throw new Error(`"topic" must be one of ${TOPICS.join(', ')}, got ${JSON.stringify(topic)}`);
  if (message === undefined) throw new Error('"message" is missing');
  if (
    attributes !== undefined &&
    (!isObject(attributes) || Object.values(attributes).some((v) => typeof v !== 'string'))
  )
    throw new Error('"attributes" must be an object of strings');
  for (const [name, id] of [
    ['groupId', groupId],
    ['deduplicationId', deduplicationId],
  ] as const)
    if (id !== undefined && (typeof id !== 'string' || !isValidFifoId(id)))
      throw new Error(
        `"${name}" must be 1 to 128 ASCII letters, digits or punctuation (what SNS FIFO accepts)`,
      );
  return {
    topic: topic as Topic,
    message: typeof message === 'string' ? message : stringifyJsonExact(message)!,
    ...(attributes ? { attributes: attributes as Record<string, string> } : {}),
    ...(groupId ? { groupId: groupId as string } : {}),
    ...(deduplicationId ? { deduplicationId: deduplicationId as string } : {}),
  };
};

export const readInputFile = (file: string): InputFile => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--input: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  const messages: SampleMessage[] = [];
  const skipped: InputProblem[] = [];
  const lines = text.split(/\r?\n/);
  let count = 0;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    count++;
    try {
      messages.push({ ...parseLine(line), line: index + 1 });
    } catch (error) {
      skipped.push({ line: index + 1, error: (error as Error).message });
    }
  });
  if (count === 0)
    throw new UsageError(
      `--input: ${file} has no messages (it is empty or holds only blank lines); nothing to publish`,
    );
  return { messages, lines: count, skipped };
};

/**
 * FIFO ids as a real publisher sets them: group = tenant#account, dedup id = content hash (the consumer's
 * own key code). A message that does not parse gets a stable fallback: its tenant attribute (or
 * `default`) + `#unparsed`, and the SHA-256 of its text.
 */
export const publishIds = (
  message: SampleMessage,
): { groupId: string; deduplicationId: string } => {
  let derived: { messageGroupId: string; messageDeduplicationId: string } | undefined;
  try {
    const decoded = decodeRecord({
      body: message.message,
      messageAttributes: Object.fromEntries(
        Object.entries(message.attributes ?? {}).map(([name, value]) => [
          name,
          { stringValue: value, dataType: 'String' },
        ]),
      ),
    });
    derived = fifoPublishIds(parseCostEvent(decoded).event);
  } catch {
    derived = undefined;
  }
  const fallbackGroup = fifoGroupId(message.attributes?.tenant ?? 'default', 'unparsed');
  return {
    groupId: message.groupId ?? derived?.messageGroupId ?? fallbackGroup,
    deduplicationId:
      message.deduplicationId ??
      derived?.messageDeduplicationId ??
      createHash('sha256').update(message.message).digest('hex'),
  };
};
