/**
 * The wire rules of the result continuation extension (mcp-rendering/result-continuation) that its
 * scenarios and the rendering ones share: the carrier key, the members of each carrier, what makes a carrier value
 * well-formed, and what the scenarios take as the records of a part.
 */

export const CONTINUATION_EXTENSION_ID = 'mcp-rendering/result-continuation';

export const CONTINUATION_SPEC_URL =
  'https://github.com/modelcontextprotocol/experimental-ext-result-continuation/blob/main/specification/draft/result-continuation.mdx';

export function continuationRef(section: string): { id: string; url: string } {
  return {
    id: `result-continuation#${section}`,
    url: `${CONTINUATION_SPEC_URL}#${section}`
  };
}

const ARGUMENT = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const TOKEN = /^[A-Za-z0-9._~-]+$/;
const TOKEN_MAX_LENGTH = 4096;
const EXPIRES_AT =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?Z$/;

/** Whether `text` is an `expiresAt` of the type: the pattern, and a real UTC time (no leap second). */
export function isExpiresAt(text: string): boolean {
  const match = EXPIRES_AT.exec(text);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match
    .slice(1, 7)
    .map(Number);
  const moment = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    moment.getUTCFullYear() === year &&
    moment.getUTCMonth() === month - 1 &&
    moment.getUTCDate() === day &&
    moment.getUTCHours() === hour &&
    moment.getUTCMinutes() === minute &&
    moment.getUTCSeconds() === second
  );
}

export interface Continuation {
  argument: string;
  token: string;
  expiresAt?: string;
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The continuation carrier in a `_meta` object, or undefined when the `_meta` has none. */
export function continuationOf(holder: unknown): unknown {
  if (holder === null || typeof holder !== 'object') return undefined;
  const meta = (holder as { _meta?: unknown })._meta;
  if (meta === null || typeof meta !== 'object') return undefined;
  return (meta as Record<string, unknown>)[CONTINUATION_EXTENSION_ID];
}

/**
 * Every way a carrier value breaks the types of the specification (an empty list when it is well-formed): the
 * tool carrier is `{argument}`, the result carrier `{argument, token, expiresAt?}`, with no other member.
 */
export function continuationProblems(
  value: unknown,
  kind: 'tool' | 'result'
): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [`the ${kind} carrier is ${typeName(value)}, not an object`];
  }
  const record = value as Record<string, unknown>;
  const members = kind === 'tool' ? ['argument'] : ['argument', 'token'];
  const optional = kind === 'tool' ? [] : ['expiresAt'];
  const problems: string[] = [];
  for (const name of Object.keys(record)) {
    if (!members.includes(name) && !optional.includes(name))
      problems.push(
        `unknown member ${JSON.stringify(name)} in the ${kind} carrier`
      );
  }
  for (const name of members) {
    if (!(name in record)) problems.push(`${name} is missing`);
  }
  const { argument, token, expiresAt } = record;
  if ('argument' in record) {
    if (typeof argument !== 'string' || !ARGUMENT.test(argument))
      problems.push(`argument is not an argument name: ${typeName(argument)}`);
  }
  if ('token' in record) {
    if (
      typeof token !== 'string' ||
      token.length > TOKEN_MAX_LENGTH ||
      !TOKEN.test(token)
    )
      problems.push(
        `token is not 1 to ${TOKEN_MAX_LENGTH} URL-safe characters: ${typeName(token)}`
      );
  }
  if (kind === 'result' && 'expiresAt' in record) {
    if (typeof expiresAt !== 'string' || !isExpiresAt(expiresAt))
      problems.push('expiresAt is not an RFC 3339 time in UTC');
  }
  return problems;
}

/** The result carrier when it is well-formed, else undefined. */
export function wellFormedContinuation(
  result: unknown
): Continuation | undefined {
  const value = continuationOf(result);
  if (value === undefined || value === null) return undefined;
  return continuationProblems(value, 'result').length === 0
    ? (value as Continuation)
    : undefined;
}

/**
 * The records of a part, as the scenarios judge them: the elements of the innermost arrays of objects in its
 * `structuredContent`, in document order, each keyed by its array's path (indices of enclosing arrays left out, so
 * that a section repeated on the next part keeps its key) and by its `id` member when it has a string one. A part
 * without `structuredContent` has no records the scenarios can judge.
 */
export interface PartRecord {
  path: string;
  id: string | undefined;
  json: string;
}

export function recordsOf(result: unknown): PartRecord[] | undefined {
  const structured = (result as { structuredContent?: unknown } | null)
    ?.structuredContent;
  if (structured === null || typeof structured !== 'object') return undefined;
  const records: PartRecord[] = [];
  const walk = (value: unknown, path: string): boolean => {
    // Returns whether `value` holds an array of objects, so that only the innermost ones give records.
    if (Array.isArray(value)) {
      const objects = value.filter(
        (item) => item !== null && typeof item === 'object'
      );
      const nested = objects.map((item) => walk(item, `${path}[]`));
      if (objects.length > 0 && !nested.some(Boolean)) {
        for (const item of objects) {
          const id = (item as { id?: unknown }).id;
          records.push({
            path,
            id: typeof id === 'string' ? id : undefined,
            json: JSON.stringify(item)
          });
        }
      }
      return objects.length > 0;
    }
    if (value !== null && typeof value === 'object') {
      let holds = false;
      for (const [key, member] of Object.entries(value)) {
        if (walk(member, `${path}.${key}`)) holds = true;
      }
      return holds;
    }
    return false;
  };
  walk(structured, '$');
  return records;
}

/** The identity of a record: its array's path and its `id`, or its whole JSON when it has no `id`. */
export function recordKey(record: PartRecord): string {
  return `${record.path}#${record.id ?? record.json}`;
}

/**
 * Records cut inside: a key that two parts both hold with different values (one record split between parts, or
 * a fragment of it repeated). Each message names the record and the parts.
 */
export function cutRecords(parts: PartRecord[][]): string[] {
  const seen = new Map<string, { part: number; json: string }>();
  const problems: string[] = [];
  parts.forEach((records, part) => {
    for (const record of records) {
      if (record.id === undefined) continue;
      const key = recordKey(record);
      const before = seen.get(key);
      if (before && before.part !== part && before.json !== record.json)
        problems.push(
          `record ${JSON.stringify(record.id)} (${record.path}) is split between parts ${before.part + 1} and ${part + 1}`
        );
      if (!before) seen.set(key, { part, json: record.json });
    }
  });
  return problems;
}

/** The JSON of a value with every occurrence of the given tokens (and any `expiresAt` value) replaced. */
export function withoutTokens(value: unknown, tokens: string[]): string {
  let text = JSON.stringify(value ?? null);
  for (const token of tokens) {
    if (token) text = text.split(token).join('<token>');
  }
  return text.replace(/"expiresAt":"[^"]*"/g, '"expiresAt":"<time>"');
}
