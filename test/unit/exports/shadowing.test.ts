import {
  shadowingAfterSwitch,
  shadowingAmong,
  shadowingNote,
  type PeriodSourcesPort,
} from '../../../lambda/core/exports/shadowing';
import type { SourceRank } from '../../../lambda/core/export-authority';

const FIRST = { source: 'exports/acme/focus', firstSwitchedAt: '2026-11-02T06:00:00.000Z' };
const LATER = { source: 'exports/acme/second', firstSwitchedAt: '2026-11-02T07:00:00.000Z' };
const DECLARED = {
  source: 'exports/acme/main',
  precedence: 0,
  firstSwitchedAt: '2026-11-09T00:00:00.000Z',
};

describe('shadowingAmong', () => {
  it('names the sources ranked above and below the switched one, best first', () => {
    expect(shadowingAmong([FIRST, LATER, DECLARED], LATER)).toEqual({
      shadowedBy: [DECLARED.source, FIRST.source],
      shadows: [],
    });
    expect(shadowingAmong([FIRST, LATER, DECLARED], DECLARED)).toEqual({
      shadowedBy: [],
      shadows: [FIRST.source, LATER.source],
    });
    expect(shadowingAmong([FIRST], FIRST)).toEqual({ shadowedBy: [], shadows: [] });
  });

  it('the note names the authoritative export, and is empty for the only export of its period', () => {
    expect(shadowingNote(shadowingAmong([FIRST, LATER], LATER))).toBe(
      `shadowed by ${FIRST.source} on the accounts both cover (that export counts there)`,
    );
    expect(shadowingNote(shadowingAmong([FIRST, LATER], FIRST))).toBe(
      `shadows ${LATER.source} on the accounts they share with it`,
    );
    expect(shadowingNote({ shadowedBy: [], shadows: [] })).toBe('');
  });
});

describe('shadowingAfterSwitch', () => {
  it('registers the switched source before ranking it among the period’s sources', async () => {
    const registered: string[] = [];
    const port: PeriodSourcesPort = {
      register: (_tenant, _period, source) => {
        registered.push(source);
        return Promise.resolve();
      },
      ranks: (): Promise<SourceRank[]> =>
        Promise.resolve([FIRST, ...registered.filter((s) => s === LATER.source).map(() => LATER)]),
    };
    const ref = { tenant: 'acme', source: LATER.source, period: '2026-11', executionId: 's-1' };
    expect(await shadowingAfterSwitch(port, ref)).toEqual({
      shadowedBy: [FIRST.source],
      shadows: [],
    });
    expect(registered).toEqual([LATER.source]);
  });
});
