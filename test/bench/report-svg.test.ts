import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderSvg } from '../../bench/lib/report/svg';
import { measurements, reportOf, summaryOf } from './support/report-fixture';

const RESULTS = path.join(__dirname, '..', '..', 'bench', 'results');

/** Well-formedness of the XML subset the chart uses: elements, quoted attributes, text, entities. */
const xmlProblems = (xml: string): string[] => {
  const problems: string[] = [];
  const open: string[] = [];
  let roots = 0;
  const value = '"(?:[^"<&]|&(?:amp|lt|gt|quot|apos);)*"';
  const token = new RegExp(
    `<(/?)([A-Za-z][\\w:-]*)((?:\\s+[\\w:-]+=${value})*)\\s*(/?)>|([^<]+)|(<)`,
    'g',
  );
  for (const match of xml.matchAll(token)) {
    const [, closing, name, , selfClosing, text, stray] = match;
    if (stray) problems.push(`malformed tag at ${match.index}`);
    else if (text !== undefined) {
      if (open.length === 0 && text.trim())
        problems.push(`text outside the root at ${match.index}`);
      if (/&(?!(?:amp|lt|gt|quot|apos);)/.test(text)) problems.push(`bare & at ${match.index}`);
    } else if (closing) {
      if (open.pop() !== name) problems.push(`</${name}> at ${match.index} closes nothing open`);
    } else {
      if (open.length === 0) roots += 1;
      if (!selfClosing) open.push(name);
    }
  }
  if (open.length) problems.push(`never closed: ${open.join(', ')}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
};

const bars = (svg: string) =>
  [
    ...svg.matchAll(/<rect x="(\d+)" y="([^"]+)" width="48" height="([^"]+)" fill="([^"]+)"\/>/g),
  ].map(([, x, y, height, fill]) => ({ x: Number(x), y: Number(y), height: Number(height), fill }));

describe('bench report: SVG chart', () => {
  const svg = renderSvg(reportOf());

  it('the checker used here rejects what is not well-formed', () => {
    expect(xmlProblems('<svg><text>a</svg>')).not.toEqual([]);
    expect(xmlProblems('<svg><text x=1>a</text></svg>')).not.toEqual([]);
    expect(xmlProblems('<svg><text>a & b</text></svg>')).not.toEqual([]);
    expect(xmlProblems('<svg/><svg/>')).not.toEqual([]);
    expect(xmlProblems('<svg><text x="1">a &amp; b</text><rect/></svg>\n')).toEqual([]);
  });

  it('is one well-formed <svg> document ending with a newline', () => {
    expect(xmlProblems(svg)).toEqual([]);
    expect(
      svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="1240" height="350"'),
    ).toBe(true);
    expect(svg.endsWith('</svg>\n')).toBe(true);
  });

  it('draws four panels of four bars, the tallest of each panel at full height', () => {
    const drawn = bars(svg);
    expect(drawn).toHaveLength(16);
    for (let panel = 0; panel < 4; panel += 1)
      expect(Math.max(...drawn.slice(panel * 4, panel * 4 + 4).map((b) => b.height))).toBe(170);
    expect(drawn.slice(0, 4).map((b) => b.height)).toEqual([170, 85, 170, 85]);
    expect(drawn.slice(0, 4).map((b) => b.fill)).toEqual([
      '#1b7f5b',
      '#c0563b',
      '#1b7f5b',
      '#c0563b',
    ]);
    for (const bar of drawn) expect(bar.y + bar.height).toBe(250);
  });

  it('labels bars with their value and the panels with their title', () => {
    expect(svg).toContain('<text x="60" y="76.0" text-anchor="middle">2,000</text>');
    expect(svg).toContain('<text x="1016" y="76.0" text-anchor="middle">3</text>');
    for (const title of [
      'events/s, default workload',
      'events/s, hot account',
      'CPU ms / 1,000 events (default)',
      'double-applied under crashes',
    ])
      expect(svg).toContain(`font-weight="bold">${title}</text>`);
  });

  it('stays well-formed with all-zero figures (flat bars, no NaN)', () => {
    const report = measurements();
    for (const workload of ['default', 'hot'] as const)
      for (const queue of ['standard', 'fifo'] as const)
        for (const implementation of ['ours', 'baseline'] as const)
          report.throughput[workload][queue][implementation] = summaryOf({
            eventsPerSecond: 0,
            cpuMsPerThousandEvents: 0,
          });
    report.crash = [];
    const flat = renderSvg(reportOf(report));
    expect(xmlProblems(flat)).toEqual([]);
    expect(flat).not.toContain('NaN');
    expect(bars(flat).map((b) => b.height)).toEqual(Array(16).fill(0));
  });

  it('escapes text taken from the report', () => {
    const report = measurements();
    report.generatedAt = '<a&b>03-04T00:00:00Z';
    const escaped = renderSvg(reportOf(report));
    expect(xmlProblems(escaped)).toEqual([]);
    expect(escaped).toContain('batch — &lt;a&amp;b&gt;03-04, 2,000 + 1,000 (hot) events');
  });

  it('renders the committed latest.json into the committed latest.svg', () => {
    const report = JSON.parse(readFileSync(path.join(RESULTS, 'latest.json'), 'utf8'));
    const rendered = renderSvg(report);
    expect(xmlProblems(rendered)).toEqual([]);
    expect(rendered).toBe(readFileSync(path.join(RESULTS, 'latest.svg'), 'utf8'));
  });
});
