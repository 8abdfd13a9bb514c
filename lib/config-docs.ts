/**
 * The configuration table of docs/infrastructure.md, rendered from the rule table. The infra
 * tests compare the page with it; after changing a rule, paste the output of
 * `npx tsx -e "console.log(require('./lib/config-docs').renderConfigTable())"` into the page.
 */
import { CONFIG_RULES, ConfigRule } from './config-rules';

export interface ConfigDocRow {
  readonly key: string;
  readonly default: string;
  readonly accepted: string;
  readonly meaning: string;
}

export const CONFIG_TABLE_HEADER = ['key', 'default', 'accepted', 'meaning'] as const;

function defaultText(rule: ConfigRule<unknown>): string {
  if (rule.defaultDoc) return rule.defaultDoc;
  return `\`${JSON.stringify(rule.default)?.replace(/^"|"$/g, '') ?? 'unset'}\``;
}

export function configDocRows(): ConfigDocRow[] {
  return Object.entries(CONFIG_RULES).map(([key, rule]: [string, ConfigRule<unknown>]) => ({
    key: `\`${key}\``,
    default: defaultText(rule),
    accepted: rule.parser.accepted,
    meaning: rule.doc,
  }));
}

/** Escapes `|` so a cell never splits the Markdown row. */
const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function renderConfigTable(): string {
  const rows = configDocRows().map((r) => [r.key, r.default, r.accepted, r.meaning]);
  return [
    `| ${CONFIG_TABLE_HEADER.join(' | ')} |`,
    `| ${CONFIG_TABLE_HEADER.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}
