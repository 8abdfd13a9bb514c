/** bench/results/latest.svg: a hand-built bar chart, no charting dependency. */
import type { ImplementationName, QueueKind } from '../harness';
import { QUEUES, type Report } from './document';
import { formatNumber } from './format';
import { crashTotal } from './summary';

const COLORS: Record<ImplementationName, string> = { ours: '#1b7f5b', baseline: '#c0563b' };
const IMPLEMENTATIONS: ImplementationName[] = ['ours', 'baseline'];
const PANEL_WIDTH = 300;
const PANEL_HEIGHT = 240;

/** Escapes text content for XML (attribute values here are numbers and constants). */
const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Panel {
  title: string;
  value: (queue: QueueKind, implementation: ImplementationName) => number;
  digits: number;
}

const panelsOf = (report: Report): Panel[] => [
  {
    title: 'events/s, default workload',
    value: (q, i) => report.throughput.default[q][i].eventsPerSecond,
    digits: 0,
  },
  {
    title: 'events/s, hot account',
    value: (q, i) => report.throughput.hot[q][i].eventsPerSecond,
    digits: 0,
  },
  {
    title: 'CPU ms / 1,000 events (default)',
    value: (q, i) => report.throughput.default[q][i].cpuMsPerThousandEvents,
    digits: 0,
  },
  {
    title: 'double-applied under crashes',
    value: (queue, implementation) =>
      crashTotal(report.crash, (r) => r.doubleApplied, { queue, implementation }),
    digits: 0,
  },
];

/** One panel: a title, a baseline axis, four bars (ours and baseline per queue kind) with values. */
const renderPanel = (panel: Panel, x0: number): string[] => {
  const parts: string[] = [];
  const y0 = 50;
  const bars = QUEUES.flatMap((q) => IMPLEMENTATIONS.map((i) => ({ q, i, v: panel.value(q, i) })));
  const max = Math.max(...bars.map((b) => b.v), 1e-9);
  const chartTop = y0 + 30;
  const chartHeight = PANEL_HEIGHT - 70;
  parts.push(
    `<text x="${x0 + 10}" y="${y0 + 12}" font-weight="bold">${escapeXml(panel.title)}</text>`,
  );
  parts.push(
    `<line x1="${x0 + 10}" y1="${chartTop + chartHeight}" x2="${x0 + PANEL_WIDTH - 20}" y2="${chartTop + chartHeight}" stroke="#888"/>`,
  );
  bars.forEach((bar, index) => {
    const barWidth = 48;
    const gap = index >= 2 ? 24 : 0;
    const x = x0 + 16 + index * (barWidth + 8) + gap;
    const h = (bar.v / max) * chartHeight;
    const y = chartTop + chartHeight - h;
    parts.push(
      `<rect x="${x}" y="${y.toFixed(1)}" width="${barWidth}" height="${h.toFixed(1)}" fill="${COLORS[bar.i]}"/>`,
    );
    parts.push(
      `<text x="${x + barWidth / 2}" y="${(y - 4).toFixed(1)}" text-anchor="middle">${escapeXml(formatNumber(bar.v, panel.digits))}</text>`,
    );
    parts.push(
      `<text x="${x + barWidth / 2}" y="${chartTop + chartHeight + 14}" text-anchor="middle" font-size="10">${bar.i}</text>`,
    );
  });
  parts.push(
    `<text x="${x0 + 16 + 52}" y="${chartTop + chartHeight + 28}" text-anchor="middle" font-size="10" fill="#555">standard</text>`,
  );
  parts.push(
    `<text x="${x0 + 16 + 24 + 2 * 56 + 52}" y="${chartTop + chartHeight + 28}" text-anchor="middle" font-size="10" fill="#555">FIFO</text>`,
  );
  return parts;
};

/** Four panels of side-by-side bars: throughput of both workloads, handler CPU, double-applies under crashes. */
export const renderSvg = (report: Report): string => {
  const panels = panelsOf(report);
  const width = PANEL_WIDTH * panels.length + 40;
  const height = PANEL_HEIGHT + 110;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  parts.push(
    `<text x="20" y="24" font-size="15" font-weight="bold">${escapeXml(`billing-dedup vs Powertools idempotency + batch — ${report.generatedAt.slice(0, 10)}, ${report.config.workloads.default.events.toLocaleString('en-US')} + ${report.config.workloads.hot.events.toLocaleString('en-US')} (hot) events, DynamoDB Local`)}</text>`,
  );
  panels.forEach((panel, p) => parts.push(...renderPanel(panel, 20 + p * PANEL_WIDTH)));
  const legendY = height - 24;
  parts.push(
    `<rect x="20" y="${legendY - 10}" width="12" height="12" fill="${COLORS.ours}"/><text x="38" y="${legendY}">ours (one TransactWriteItems per record / group, BatchGetItem pre-read)</text>`,
  );
  parts.push(
    `<rect x="520" y="${legendY - 10}" width="12" height="12" fill="${COLORS.baseline}"/><text x="538" y="${legendY}">baseline (Powertools BatchProcessor + makeIdempotent, plain Put/Update)</text>`,
  );
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
};
