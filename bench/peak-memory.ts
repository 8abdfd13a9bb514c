/**
 * Runs a command and reports its wall time and the peak resident memory of its whole process tree
 * (every descendant, e.g. node + the DynamoDB Local JVM), sampled from /proc every 200 ms. Linux only.
 *
 *   npx tsx bench/peak-memory.ts -- npm start
 *   npx tsx bench/peak-memory.ts -- npm start -- --faults ack-loss=0,throttle=0,timeout=0
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const read = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

const descendants = (root: number): number[] => {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  for (const stack = [root]; stack.length > 0;) {
    const pid = stack.pop() as number;
    tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
};

const rssKiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0);
const name = (pid: number): string => read(`/proc/${pid}/comm`).trim() || '?';

const separator = process.argv.indexOf('--');
const [command, ...args] = process.argv.slice(separator >= 0 ? separator + 1 : 2);
if (!command) {
  console.error('usage: tsx bench/peak-memory.ts -- <command> [args…]');
  process.exit(2);
}
const started = Date.now();
const child = spawn(command, args, { stdio: 'inherit' });
let peak = { total: 0, detail: [] as [string, number][] };
const timer = setInterval(() => {
  const detail = descendants(child.pid as number).map((pid): [string, number] => [
    name(pid),
    rssKiB(pid),
  ]);
  const total = detail.reduce((sum, [, kib]) => sum + kib, 0);
  if (total > peak.total) peak = { total, detail };
}, 200);
child.on('exit', (code) => {
  clearInterval(timer);
  const parts = peak.detail
    .filter(([, kib]) => kib > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([process, kib]) => `${process} ${Math.round(kib / 1024)} MiB`);
  console.error(
    `[peak-memory] exit ${code} wall ${((Date.now() - started) / 1000).toFixed(1)} s, peak RSS of the process tree ${Math.round(peak.total / 1024)} MiB (${parts.join(', ')})`,
  );
  process.exit(code ?? 1);
});
