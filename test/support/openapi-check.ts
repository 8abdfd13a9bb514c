/**
 * Checks an answer against contract/push-api.openapi.json: the status is documented for the path and
 * method, documented headers are present, and a JSON body has the schema's required properties with the
 * declared types (the subset of JSON Schema the description uses).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

type Schema = Record<string, unknown>;
const SPEC = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../contract/push-api.openapi.json'), 'utf8'),
) as Schema;

const resolve = (node: unknown): Schema => {
  let current = node as Schema;
  while (typeof current?.$ref === 'string') {
    current = (current.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Schema>((at, part) => at[part] as Schema, SPEC);
  }
  return current;
};

const typeOk = (value: unknown, type: unknown): boolean =>
  type === undefined ||
  (type === 'integer'
    ? Number.isInteger(value)
    : type === 'array'
      ? Array.isArray(value)
      : type === 'object'
        ? typeof value === 'object' && value !== null && !Array.isArray(value)
        : typeof value === type);

const schemaProblems = (value: unknown, schemaNode: unknown, at: string): string[] => {
  const schema = resolve(schemaNode);
  if (!typeOk(value, schema.type)) return [`${at}: not of type ${String(schema.type)}`];
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return [`${at}: not in enum`];
  if (Array.isArray(value) && schema.items)
    return value.flatMap((item, i) => schemaProblems(item, schema.items, `${at}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  const object = value as Record<string, unknown>;
  const required = (schema.required as string[] | undefined) ?? [];
  const missing = required.filter((key) => !(key in object)).map((key) => `${at}.${key}: missing`);
  const properties = (schema.properties as Record<string, unknown> | undefined) ?? {};
  return [
    ...missing,
    ...Object.entries(properties)
      .filter(([key]) => key in object)
      .flatMap(([key, sub]) => schemaProblems(object[key], sub, `${at}.${key}`)),
  ];
};

export interface ObservedAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Problems of `answer` for `method` on the spec path `specPath`; empty when it conforms. */
export const openApiProblems = (
  specPath: string,
  method: string,
  answer: ObservedAnswer,
): string[] => {
  const operation = resolve(
    ((SPEC.paths as Schema)[specPath] as Schema | undefined)?.[method.toLowerCase()],
  );
  if (!operation) return [`${method} ${specPath} is not described`];
  const response = (operation.responses as Schema)[String(answer.statusCode)];
  if (!response) return [`status ${answer.statusCode} is not documented for ${specPath}`];
  const documented = resolve(response);
  const headers = Object.keys((documented.headers as Schema | undefined) ?? {})
    .filter((name) => answer.headers[name.toLowerCase()] === undefined)
    .map((name) => `header ${name} missing`);
  const content = (documented.content as Schema | undefined)?.['application/json'] as
    Schema | undefined;
  if (!content) return headers;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return [...headers, 'body is not JSON'];
  }
  return [...headers, ...schemaProblems(body, content.schema, '$')];
};
