/** The function's configuration file (contract/function-config.ts), read once per container. */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import {
  FUNCTION_CONFIG_FILE_ENV,
  inlineFunctionConfig,
  parseFunctionConfig,
  type FunctionConfig,
} from '../../contract/function-config';
import type { EnvironmentSource } from '../../contract/environment';

const cache = new Map<string, FunctionConfig>();

/**
 * FUNCTION_CONFIG if set, else the file FUNCTION_CONFIG_FILE names (a relative name is in the code
 * directory, LAMBDA_TASK_ROOT), else empty.
 */
export const readFunctionConfig = (env: EnvironmentSource): FunctionConfig => {
  const inline = inlineFunctionConfig(env);
  if (inline) return inline;
  const name = env[FUNCTION_CONFIG_FILE_ENV]?.trim();
  if (!name) return {};
  const path = isAbsolute(name) ? name : join(env.LAMBDA_TASK_ROOT ?? process.cwd(), name);
  const cached = cache.get(path);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `${FUNCTION_CONFIG_FILE_ENV}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}); ` +
        'the function was deployed without its bundled configuration',
    );
  }
  const config = parseFunctionConfig(text, path);
  cache.set(path, config);
  return config;
};
