/**
 * `--input FILE.jsonl`: one message per line,
 * `{"topic": "cost-events" | "budget-alerts", "message": <JSON value or string>, "attributes"?: {…},
 *   "groupId"?: "…", "deduplicationId"?: "…"}`, or a billing export delivered to the local bucket,
 * `{"export": {"tenant", "billingPeriod", "executionId", "files": [paths relative to the input file]}}`,
 * `{"settle": true}` (wait until everything is processed before the next line), or a billing period
 * action, `{"close": {"tenant", "accountId", "period", "reason"?}}` or
 * `{"reopen": {"tenant", "accountId", "period", "reason"}}`: everything before it is processed first,
 * then the period is closed or reopened the way `billing-dedup period close|reopen` does it.
 * `{"providerTotal": {"tenant", "accountId", "period", "currency", "amount"}}` tells the local stand-in
 * for the provider's totals one figure, and `{"reconcile": {"period": "YYYY-MM"}}` reconciles that
 * period against the stand-in once everything before it is processed (local/reconciliation/stand-in.ts).
 * A bad line is reported with its line number and skipped; the run still happens, and its verdict fails
 * (a partly published input must never look like a clean run). A file without any message is a usage
 * error: an empty export must not pass as a clean run that "published 0".
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { decodeRecord } from '../lambda/core/envelope';
import { parseCostEvent } from '../lambda/core/formats/index';
import { fifoGroupId, fifoPublishIds, isValidFifoId } from '../lambda/core/keys';
import { UsageError } from './runtime/faults';
import { TOPICS, type SampleMessage, type Topic } from './scenarios/generator';
import { parseJsonExact, stringifyJsonExact } from '../lambda/core/json';
import { dataFileFormat } from '../lambda/core/exports/manifest';
import { normalizeTenant } from '../lambda/core/formats/scope';
import { slugProblem } from '../contract/slugs';
import type { ExportDelivery } from './exports/delivery';
import type { PeriodKey } from '../lambda/core/ports';
import {
  parseProviderTotal,
  parseReconcile,
  type ProviderTotalLine,
} from './reconciliation/stand-in';

export interface InputProblem {
  line: number;
  error: string;
}

/** A billing period closed or reopened by the run, after everything before it settled. */
export interface PeriodAction {
  action: 'close' | 'reopen';
  key: PeriodKey;
  reason: string;
  line?: number;
}

/** What the run does, in file order: publish messages, deliver an export, wait until settled, or close/reopen a period. */
export type RunStep =
  | { kind: 'messages'; messages: SampleMessage[] }
  | { kind: 'export'; delivery: ExportDelivery }
  | { kind: 'settle'; line?: number }
  | { kind: 'period'; period: PeriodAction }
  | { kind: 'providerTotal'; total: ProviderTotalLine; line?: number }
  | { kind: 'reconcile'; period: string; line?: number }
  /** The sample's push requests: `start` sends them in the background, `finish` waits and settles. */
  | { kind: 'pushes'; phase: 'start' | 'finish' };

export interface InputFile {
  /** Every message line, in file order. */
  messages: SampleMessage[];
  /** Messages, exports and settle lines in file order (consecutive messages grouped); default: the messages. */
  steps?: RunStep[];
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

const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;
const EXECUTION_ID = /^[0-9A-Za-z_-][0-9A-Za-z_.-]{0,127}$/;

const parseExport = (value: unknown, directory: string): ExportDelivery => {
  if (!isObject(value))
    throw new Error('"export" must be an object {tenant, billingPeriod, executionId, files}');
  const { tenant, billingPeriod, executionId, files } = value;
  let slug: string;
  try {
    slug = normalizeTenant(tenant, 'export.tenant');
  } catch {
    throw new Error(`"export.tenant" ${slugProblem('tenant', tenant)}`);
  }
  if (typeof billingPeriod !== 'string' || !PERIOD.test(billingPeriod))
    throw new Error('"export.billingPeriod" must be a YYYY-MM month');
  if (typeof executionId !== 'string' || !EXECUTION_ID.test(executionId))
    throw new Error(
      '"export.executionId" must be 1 to 128 letters, digits, "_", "-" or "." (not first)',
    );
  if (!Array.isArray(files) || files.length === 0 || files.some((f) => typeof f !== 'string'))
    throw new Error('"export.files" must be a non-empty list of file paths');
  const paths = (files as string[]).map((file) => {
    if (dataFileFormat(file) === undefined)
      throw new Error(`"export.files": ${file} is not .csv, .csv.gz or .parquet`);
    const path = resolve(directory, file);
    if (!existsSync(path)) throw new Error(`"export.files": ${file} does not exist (${path})`);
    return path;
  });
  return { tenant: slug, billingPeriod, executionId, files: paths };
};

/** The reason a close line records when it gives none. */
export const LOCAL_CLOSE_REASON = 'closed by the local run';

const parsePeriodAction = (action: 'close' | 'reopen', value: unknown): PeriodAction => {
  const shape =
    action === 'close'
      ? '{"tenant", "accountId", "period", "reason"?}'
      : '{"tenant", "accountId", "period", "reason"}';
  if (!isObject(value)) throw new Error(`"${action}" must be an object ${shape}`);
  const { tenant, accountId, period, reason } = value;
  const unknown = Object.keys(value).filter(
    (name) => !['tenant', 'accountId', 'period', 'reason'].includes(name),
  );
  if (unknown.length > 0)
    throw new Error(`"${action}" has unknown field(s) ${unknown.join(', ')}: expected ${shape}`);
  let slug: string;
  try {
    slug = normalizeTenant(tenant, `${action}.tenant`);
  } catch {
    throw new Error(`"${action}.tenant" ${slugProblem('tenant', tenant)}`);
  }
  if (typeof accountId !== 'string' || accountId.trim() === '')
    throw new Error(`"${action}.accountId" must be a non-empty string`);
  if (typeof period !== 'string' || !PERIOD.test(period))
    throw new Error(`"${action}.period" must be a YYYY-MM month`);
  if (reason !== undefined && (typeof reason !== 'string' || reason.trim() === ''))
    throw new Error(`"${action}.reason" must be a non-empty string`);
  if (action === 'reopen' && reason === undefined)
    throw new Error('"reopen.reason" is required: a reopen is always explained');
  return {
    action,
    key: { tenant: slug, accountId: accountId.trim(), period },
    reason: typeof reason === 'string' ? reason.trim() : LOCAL_CLOSE_REASON,
  };
};

const parseStep = (text: string, line: number, directory: string): RunStep => {
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  if (isObject(value) && 'export' in value) {
    if (Object.keys(value).length > 1)
      throw new Error('an export line holds only "export" (no topic or message)');
    return { kind: 'export', delivery: { ...parseExport(value.export, directory), line } };
  }
  for (const action of ['close', 'reopen'] as const)
    if (isObject(value) && action in value) {
      if (Object.keys(value).length > 1)
        throw new Error(`a ${action} line holds only "${action}" (no topic or message)`);
      return { kind: 'period', period: { ...parsePeriodAction(action, value[action]), line } };
    }
  if (isObject(value) && 'providerTotal' in value) {
    if (Object.keys(value).length > 1)
      throw new Error('a providerTotal line holds only "providerTotal" (no topic or message)');
    return { kind: 'providerTotal', total: parseProviderTotal(value.providerTotal), line };
  }
  if (isObject(value) && 'reconcile' in value) {
    if (Object.keys(value).length > 1)
      throw new Error('a reconcile line holds only "reconcile" (no topic or message)');
    return { kind: 'reconcile', period: parseReconcile(value.reconcile), line };
  }
  if (isObject(value) && 'settle' in value) {
    if (value.settle !== true || Object.keys(value).length > 1)
      throw new Error('a settle line is exactly {"settle": true}');
    return { kind: 'settle', line };
  }
  return { kind: 'messages', messages: [{ ...parseLine(text), line }] };
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
  const steps: RunStep[] = [];
  const skipped: InputProblem[] = [];
  const lines = text.split(/\r?\n/);
  const directory = dirname(resolve(file));
  let count = 0;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    count++;
    let step: RunStep;
    try {
      step = parseStep(line, index + 1, directory);
    } catch (error) {
      skipped.push({ line: index + 1, error: (error as Error).message });
      return;
    }
    const last = steps[steps.length - 1];
    if (step.kind === 'messages') {
      messages.push(...step.messages);
      if (last?.kind === 'messages') last.messages.push(...step.messages);
      else steps.push(step);
    } else steps.push(step);
  });
  if (count === 0)
    throw new UsageError(
      `--input: ${file} has no messages (it is empty or holds only blank lines); nothing to publish`,
    );
  return { messages, steps, lines: count, skipped };
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
  // A message on a tenant's topic belongs to that tenant when it names none (as `publish --tenant` sends it).
  const attributes =
    message.tenantTopic !== undefined && message.attributes?.tenant === undefined
      ? { ...message.attributes, tenant: message.tenantTopic }
      : message.attributes;
  try {
    const decoded = decodeRecord({
      body: message.message,
      messageAttributes: Object.fromEntries(
        Object.entries(attributes ?? {}).map(([name, value]) => [
          name,
          { stringValue: value, dataType: 'String' },
        ]),
      ),
    });
    derived = fifoPublishIds(parseCostEvent(decoded).event);
  } catch {
    derived = undefined;
  }
  const fallbackGroup = fifoGroupId(attributes?.tenant ?? 'default', 'unparsed');
  return {
    groupId: message.groupId ?? derived?.messageGroupId ?? fallbackGroup,
    deduplicationId:
      message.deduplicationId ??
      derived?.messageDeduplicationId ??
      createHash('sha256').update(message.message).digest('hex'),
  };
};
