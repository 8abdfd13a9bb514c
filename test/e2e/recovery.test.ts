/**
 * Recovery as an operator does it: heavy faults push some records past maxReceiveCount into the DLQs
 * (correct: dead-lettered, not lost); a redrive with faults off brings them back and the verdict passes
 * exactly. Poison messages go back to the DLQ, once each.
 */
import { REJECTION_ATTRIBUTES } from '../../lambda/adapters/sqs-dead-letters';
import { generateSample } from '../../local/scenarios/generator';
import { FORGED_NOTE } from '../../local/scenarios/forged-tenant';
import type { RecordEvent } from '../../local/runtime/poller';
import { runLocal } from '../../local/phases/run-local';
import { publishedMessageOf } from '../support/published-message';

const MAX_RECEIVES = 3;

it('redrives the DLQs with faults off after a run with every fault at 0.2, and the verdict passes exactly', async () => {
  const sample = generateSample({ seed: 11, chargesPerAccountMonth: 25 });
  const exhausted: RecordEvent[] = [];
  const result = await runLocal({
    outputsFile: false,
    handlerLogFile: false,
    seed: 11,
    sample,
    acquisitions: false,
    faults: { 'ack-loss': 0.2, throttle: 0.2, timeout: 0.2 },
    redrive: true,
    // The lowest receive count the stack accepts, so that records exhaust their receives under these
    // faults on every run, however the machine schedules the workers.
    context: { maxReceiveCount: MAX_RECEIVES },
    onRecord: (event) => {
      if (event.released && event.receiveCount >= MAX_RECEIVES && !event.lostAck)
        exhausted.push(event);
    },
  });
  const { report } = result;
  expect(report.verdict.checks).toEqual(
    report.verdict.checks.map((check) => ({ ...check, ok: true })),
  );
  expect(report.verdict.status).toBe('PASS');
  // Some records exhausted their receives under the faults; all of them (and the poison) were redriven.
  expect(exhausted.length).toBeGreaterThan(0);
  const redriven = report.redriven['cost-events'] + report.redriven['budget-alerts'];
  const poisonCount = sample.messages.filter((m) => m.note?.startsWith('poison')).length;
  expect(redriven).toBeGreaterThanOrEqual(poisonCount + 3);
  expect(report.redriven['cost-events']).toBeGreaterThan(0);
  // Poison messages are back in the DLQ with their reasons, and nothing else is. A poison message whose
  // ack was lost after the consumer forwarded it was forwarded again: such copies (same body) are counted
  // once by the verdict and reported (docs/local-run.md, "Known consumer behaviour").
  const poison = new Map(
    sample.messages.filter((m) => m.note?.startsWith('poison')).map((m) => [m.message, m.topic]),
  );
  for (const [body, topic] of poison) {
    const copies = result.deadLetters[topic].filter(
      (dead) => publishedMessageOf(dead.body) === body,
    );
    expect(copies.length).toBeGreaterThanOrEqual(1);
    for (const copy of copies) expect(copy.attributes[REJECTION_ATTRIBUTES.reason]).toBeTruthy();
  }
  const conflicts = new Set(
    sample.truth.conflicts.flatMap((pair) => [pair.first.message, pair.second.message]),
  );
  // Forged-tenant messages are refused (tenant-mismatch) whatever the faults.
  const forged = new Set(
    sample.messages.filter((m) => m.note === FORGED_NOTE).map((m) => m.message),
  );
  expect(forged.size).toBeGreaterThan(0);
  for (const dead of [
    ...result.deadLetters['cost-events'],
    ...result.deadLetters['budget-alerts'],
  ]) {
    const message = publishedMessageOf(dead.body);
    expect(poison.has(message) || conflicts.has(message) || forged.has(message)).toBe(true);
  }
}, 240_000);
