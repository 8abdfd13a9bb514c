/**
 * The report of `npm run bench`: one JSON document (bench/results/latest.json), its markdown
 * rendering (latest.md) and a bar chart (latest.svg). One module per output:
 *
 * - `document.ts`: the shape of latest.json; `pricing.ts`: the prices it assumes;
 * - `summary.ts`: raw runs → the figures; `goals.ts`: the goals, computed from the figures;
 * - `markdown.ts`, `svg.ts`: the renderings; `schema.ts`: checks a parsed latest.json.
 */
export {
  QUEUES,
  REPORT_SCHEMA,
  WORKLOADS,
  type CrashRow,
  type Goal,
  type ImplementationSummary,
  type Measurements,
  type Report,
  type WorkloadName,
} from './document';
export { computeGoals } from './goals';
export { renderMarkdown } from './markdown';
export { PRICING } from './pricing';
export { reportProblems } from './schema';
export { crashRow, crashTotal, summarize } from './summary';
export { renderSvg } from './svg';
