import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJsonlLine } from '../../../cli/input';
import { readInputFile } from '../../../local/input-file';

// A JSON-number amount must reach the topic with the digits the file has: the consumer books it exactly,
// so a publisher that re-serializes through a double would book a rounded charge.
const line = (amount: string) =>
  `{"topic":"cost-events","message":{"tenant":"acme","accountId":"1","amount":${amount},"currency":"USD"}}`;

describe('input files keep every digit of JSON numbers', () => {
  it.each(['123.4567890123456789', '9007199254740993', '0.30000000000000004'])(
    'the CLI publishes %s as written',
    (amount) => {
      const item = parseJsonlLine(line(amount), 1);
      expect(item).toMatchObject({ kind: 'message' });
      const body = (item as { message: { body: string } }).message.body;
      expect(body).toContain(`"amount":${amount}`);
    },
  );

  it('the local run publishes 123.4567890123456789 as written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'input-numbers-'));
    const file = join(dir, 'in.jsonl');
    writeFileSync(file, `${line('123.4567890123456789')}\n`);
    const input = readInputFile(file);
    expect(input.messages).toHaveLength(1);
    expect(input.messages[0].message).toContain('"amount":123.4567890123456789');
  });
});
