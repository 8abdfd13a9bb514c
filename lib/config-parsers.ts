/**
 * Value parsers of the configuration rule table. Each parser turns one raw context value (a
 * string from `-c key=value`, or any JSON value from cdk.json) into a typed value or into
 * problems naming the key, the bad value and what is accepted; `accepted` is the same
 * statement for the docs table.
 */

export type Parsed<T> =
  | { readonly ok: true; readonly value: T; readonly problems?: undefined }
  | { readonly ok: false; readonly problems: readonly string[] };

export interface Parser<T> {
  /** What the parser accepts, as Markdown (the "accepted" column of the docs table). */
  readonly accepted: string;
  parse(key: string, raw: unknown): Parsed<T>;
}

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(...problems: string[]): Parsed<T> => ({ ok: false, problems });

/** Human-readable form of a raw value for error messages. */
export function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
}

function toInteger(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v);
  return NaN;
}

/** A whole number within [min, max]. */
export function wholeNumber(min: number, max: number, unit: string): Parser<number> {
  return {
    accepted: `whole number of ${unit}, ${min}-${max}`,
    parse(key, raw) {
      const n = toInteger(raw);
      if (!Number.isInteger(n))
        return fail(`${key}: expected a whole number of ${unit}, got ${show(raw)}`);
      if (n < min || n > max)
        return fail(`${key}: must be between ${min} and ${max} ${unit}, got ${n}`);
      return ok(n);
    },
  };
}

/** A whole number from a fixed list (e.g. CloudWatch Logs retention values). */
export function wholeNumberIn(
  allowed: readonly number[],
  unit: string,
  serviceRule: string,
): Parser<number> {
  const inner = wholeNumber(Math.min(...allowed), Math.max(...allowed), unit);
  return {
    accepted: `one of ${allowed.join(', ')} (${unit})`,
    parse(key, raw) {
      const parsed = inner.parse(key, raw);
      if (!parsed.ok) return parsed;
      if (!allowed.includes(parsed.value))
        return fail(`${key}: ${serviceRule} ${allowed.join(', ')}; got ${parsed.value}`);
      return parsed;
    },
  };
}

/** One of a few words; `normalize` folds case before the comparison. */
export function oneOf<T extends string>(
  allowed: readonly T[],
  normalize: (s: string) => string = (s) => s,
): Parser<T> {
  return {
    accepted: allowed.map((a) => `\`${a}\``).join(', '),
    parse(key, raw) {
      const s = typeof raw === 'string' ? normalize(raw.trim()) : undefined;
      if (s === undefined || !(allowed as readonly string[]).includes(s)) {
        return fail(
          `${key}: must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${show(raw)}`,
        );
      }
      return ok(s as T);
    },
  };
}

/** A string matching `re`; `what` names it in messages and docs. Numbers are read as their digits. */
export function matching(re: RegExp, what: string, accepted = what): Parser<string> {
  return {
    accepted,
    parse(key, raw) {
      const s = typeof raw === 'number' ? String(raw) : raw;
      if (typeof s !== 'string' || !re.test(s.trim()))
        return fail(`${key}: must be ${what}, got ${show(raw)}`);
      return ok(s.trim());
    },
  };
}

/** A string matching `re` with a message of its own (the stage name). */
export function matchingWithMessage(
  re: RegExp,
  maxLength: number,
  message: string,
  accepted: string,
): Parser<string> {
  return {
    accepted,
    parse(key, raw) {
      if (typeof raw !== 'string' || !re.test(raw) || raw.length > maxLength)
        return fail(`${key}: ${message}, got ${show(raw)}`);
      return ok(raw);
    },
  };
}

/**
 * A list given as a JSON array, a JSON array string, or a comma-separated string; `check`
 * returns why one item is not acceptable. Duplicates are dropped, order kept.
 */
export function listOf(
  itemAccepted: string,
  check: (item: string) => string | undefined,
): Parser<readonly string[]> {
  return {
    accepted: `list of ${itemAccepted} (JSON array or comma-separated)`,
    parse(key, raw) {
      let v = raw;
      if (typeof v === 'string') {
        const t = v.trim();
        if (t.startsWith('[')) {
          try {
            v = JSON.parse(t);
          } catch {
            return fail(
              `${key}: not valid JSON: ${show(raw)} (use a JSON array or a comma-separated list)`,
            );
          }
        } else {
          v = t
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s.length > 0);
        }
      }
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
        return fail(
          `${key}: expected a list of strings (JSON array or comma-separated), got ${show(raw)}`,
        );
      }
      const items = (v as string[]).map((s) => s.trim());
      const problems = items.flatMap((item) => {
        const why = check(item);
        return why ? [`${key}: ${show(item)} ${why}`] : [];
      });
      return problems.length > 0 ? fail(...problems) : ok([...new Set(items)]);
    },
  };
}

/**
 * A JSON value (given as JSON text from `-c key=value`, or as JSON from cdk.json) checked by `parse`,
 * which throws an Error whose message names the problem.
 */
export function jsonValue<T>(accepted: string, parse: (value: unknown) => T): Parser<T> {
  return {
    accepted,
    parse(key, raw) {
      let value = raw;
      if (typeof raw === 'string') {
        try {
          value = JSON.parse(raw);
        } catch {
          return fail(`${key}: not valid JSON: ${show(raw)}`);
        }
      }
      try {
        return ok(parse(value));
      } catch (err) {
        return fail((err as Error).message);
      }
    },
  };
}

/** A string `check` accepts (returns why not otherwise); numbers are read as their text. */
export function checkedString(
  accepted: string,
  check: (value: string) => string | undefined,
): Parser<string> {
  return {
    accepted,
    parse(key, raw) {
      const s = typeof raw === 'number' ? String(raw) : raw;
      if (typeof s !== 'string') return fail(`${key}: expected ${accepted}, got ${show(raw)}`);
      const why = check(s.trim());
      return why ? fail(`${key}: ${why}, got ${show(raw)}`) : ok(s.trim());
    },
  };
}
