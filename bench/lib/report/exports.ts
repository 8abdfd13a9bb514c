/**
 * The exports section's report: bench/results/exports.json (`exports-document.ts`: shape and goals),
 * exports.md (`exports-markdown.ts`) and its shape check (`exports-schema.ts`).
 */
export {
  computeExportGoals,
  EXPORT_FORMATS,
  EXPORT_GOALS,
  EXPORTS_REPORT_SCHEMA,
  type ExportsMeasurements,
  type ExportsReport,
  type FormatFigures,
} from './exports-document';
export { renderExportsMarkdown } from './exports-markdown';
export { exportsReportProblems } from './exports-schema';
