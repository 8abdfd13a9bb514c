/**
 * Configuration that grows with the stage's tenants, export prefixes and bound roles (the tenant →
 * sources map, the export sources, the push endpoint's IAM callers) reaches a function as a JSON file bundled next to its code, not as environment
 * variables: Lambda allows 4 KB of environment in total, 1,000 tenants need ~17 KB. The file is part of
 * the code asset, so a configuration change redeploys the function; reading it is one small local file
 * read per container (no runtime call, no extra init latency worth measuring against module load).
 *
 * Two carriers, one content: FUNCTION_CONFIG_FILE names the bundled file (set by lib/); FUNCTION_CONFIG
 * holds the same JSON inline (the local run and tests, which run the handler source without bundling).
 */
import { parseExportSources, type ExportSourceConfig } from './export-sources';
import { parseIamCallers, type IamCallerBinding } from './iam-callers';

/** The file's name in the function's code directory. */
export const FUNCTION_CONFIG_FILE_NAME = 'billing-dedup-config.json';
export const FUNCTION_CONFIG_ENV = 'FUNCTION_CONFIG';
export const FUNCTION_CONFIG_FILE_ENV = 'FUNCTION_CONFIG_FILE';

export interface FunctionConfig {
  /** The cost consumer's tenants: tenant id → the sources its publishers may claim (no `sources`: any). */
  readonly tenants?: Readonly<Record<string, { readonly sources?: readonly string[] }>>;
  /** The export functions' `exportSources`. */
  readonly exportSources?: readonly ExportSourceConfig[];
  /** The push endpoint's `iamCallers`: IAM role → tenant and source. */
  readonly iamCallers?: readonly IamCallerBinding[];
}

const FUNCTION_CONFIG_KEYS = ['tenants', 'exportSources', 'iamCallers'];

type Env = Readonly<Record<string, string | undefined>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON text → the validated configuration; errors name where it came from. */
export const parseFunctionConfig = (text: string, origin: string): FunctionConfig => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${origin} is not JSON`);
  }
  if (!isRecord(value))
    throw new Error(`${origin} must be a JSON object {tenants?, exportSources?, iamCallers?}`);
  const unknown = Object.keys(value).find((key) => !FUNCTION_CONFIG_KEYS.includes(key));
  if (unknown !== undefined) throw new Error(`${origin} has an unknown key "${unknown}"`);
  if (value.tenants !== undefined && !isRecord(value.tenants))
    throw new Error(`${origin}: tenants must be an object of tenant id → {sources?}`);
  let exportSources: ExportSourceConfig[] | undefined;
  let iamCallers: IamCallerBinding[] | undefined;
  try {
    exportSources =
      value.exportSources === undefined ? undefined : parseExportSources(value.exportSources);
    iamCallers = parseIamCallers(value.iamCallers);
  } catch (error) {
    throw new Error(`${origin}: ${(error as Error).message}`);
  }
  return {
    ...(value.tenants !== undefined
      ? { tenants: value.tenants as NonNullable<FunctionConfig['tenants']> }
      : {}),
    ...(exportSources !== undefined ? { exportSources } : {}),
    ...(iamCallers !== undefined ? { iamCallers } : {}),
  };
};

/** FUNCTION_CONFIG (inline) when set; the bundled file is read by lambda/adapters/function-config.ts. */
export const inlineFunctionConfig = (env: Env): FunctionConfig | undefined => {
  const inline = env[FUNCTION_CONFIG_ENV]?.trim();
  return inline
    ? parseFunctionConfig(inline, `Environment variable ${FUNCTION_CONFIG_ENV}`)
    : undefined;
};
