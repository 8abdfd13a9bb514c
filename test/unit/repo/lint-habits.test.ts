import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** Every tracked TypeScript and JavaScript file of the repository. */
const trackedSources = (): string[] =>
  execFileSync('git', ['ls-files', '*.ts', '*.js'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '');

/** `eslint-disable…` directives (not the word in prose) and whether they give a reason (`-- why`). */
const DIRECTIVE = /(?:\/\/|\/\*)\s*eslint-disable(?:-next-line|-line)?\b([^\n]*)/g;

describe('lint habits', () => {
  it('every eslint-disable directive says why, after " -- "', () => {
    const missing: string[] = [];
    for (const file of trackedSources()) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(DIRECTIVE)) {
        if (!/ -- \S/.test(match[1])) {
          const line = text.slice(0, match.index).split('\n').length;
          missing.push(`${file}:${line}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
