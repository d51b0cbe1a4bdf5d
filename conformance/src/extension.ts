/**
 * What both rendering scenarios share: the extension's identifiers, the check factory, the reading rules of
 * section 4 (member by member, strict, failing safe), the schema delta's validators, and how records are found in
 * a structured result.
 */

import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { CheckStatus, ConformanceCheck } from './types.ts';

export const EXTENSION_ID = 'io.modelcontextprotocol/rendering';
export const SPEC_DOCUMENT = 'sep/rendering.mdx';

/** The sections of the specification a check can point at, by their heading anchors. */
export type SpecSection =
  '1-capability' | '2-carriers' | '4-reading' | '5-bounded-results' | '6-reaching-the-model' | '8-security';

/** The 2026-07-28 per-request `_meta` envelope keys. */
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const MODERN_VERSION = '2026-07-28';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A ConformanceCheck of this extension: the check id doubles as its specification reference. */
export function makeCheck(
  id: string,
  section: SpecSection,
  name: string,
  description: string,
  status: CheckStatus,
  details: Record<string, unknown>,
  errorMessage?: string
): ConformanceCheck {
  const check: ConformanceCheck = {
    id,
    name,
    description,
    status,
    timestamp: new Date().toISOString(),
    specReferences: [{ id, url: `${SPEC_DOCUMENT}#${section}` }],
    details
  };
  if (errorMessage !== undefined && status === 'FAILURE') check.errorMessage = errorMessage;
  return check;
}

/** JSON with object keys sorted, so that equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A short printable form of a value, for details and messages. */
export function brief(value: unknown, limit = 160): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length <= limit ? text : `${text.slice(0, limit - 3)}...`;
}

// ------------------------------------------------------------------------------------------- the schema delta

const SCHEMA_URL = new URL('../../schema/delta/rendering.schema.json', import.meta.url);

interface Validator {
  (value: unknown): boolean;
  errors?: { instancePath: string; message?: string }[] | null;
}

class DeltaSchema {
  readonly id: string;
  readonly renderingMembers: string[];
  readonly hintMembers: string[];
  private readonly ajv: InstanceType<typeof Ajv2020>;

  constructor() {
    const schema = JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as JsonObject;
    this.id = String(schema.$id ?? 'rendering.schema.json');
    // Ajv counts minLength/maxLength in code points, as the specification does.
    this.ajv = new Ajv2020({ allErrors: true, strict: false });
    this.ajv.addSchema(schema);
    const defs = schema.$defs as Record<string, JsonObject>;
    this.renderingMembers = Object.keys((defs.Rendering.properties ?? {}) as JsonObject);
    this.hintMembers = Object.keys((defs.RenderingHints.properties ?? {}) as JsonObject);
  }

  /** The validator of the definition or member at a JSON pointer inside the delta (`/$defs/Rendering`). */
  validator(pointer: string): Validator {
    const found = this.ajv.getSchema(`${this.id}#${pointer}`);
    if (!found) throw new Error(`the schema delta has nothing at ${pointer}`);
    return found as unknown as Validator;
  }

  /** Why `value` does not conform to the definition at `pointer`; empty when it does. */
  problems(pointer: string, value: unknown): string[] {
    const validate = this.validator(pointer);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(value)'} ${e.message ?? 'is invalid'}`);
  }
}

let delta: DeltaSchema | undefined;

/** The schema delta of the extension, loaded once from schema/delta/rendering.schema.json. */
export function deltaSchema(): DeltaSchema {
  delta ??= new DeltaSchema();
  return delta;
}

// ------------------------------------------------------------------------------------- reading (section 4)
// The server scenario judges what a server sends, so it keeps only the well-formed members: a malformed value
// already fails the server's own well-formedness check, and nothing here decides what a host would present.

export type CarrierName = 'meta' | 'core';

export interface Reading {
  /** The well-formed members, each from the first carrier holding one (`_meta`, then the core form). */
  values: JsonObject;
  /** Where each member of `values` was read. */
  sources: Record<string, CarrierName>;
  /** Every malformed value (left out of `values`), as "carrier.member: why". */
  problems: string[];
}

function readMembers(
  value: unknown,
  label: string,
  definition: 'Rendering' | 'RenderingHints',
  members: string[]
): { good: JsonObject; problems: string[] } {
  if (value === undefined || value === null) return { good: {}, problems: [] };
  if (!isObject(value)) return { good: {}, problems: [`${label}: not an object (${brief(value, 60)})`] };
  const good: JsonObject = {};
  const problems: string[] = [];
  for (const member of members) {
    const raw = value[member];
    if (raw === undefined || raw === null) continue; // null means absent
    const why = deltaSchema().problems(`/$defs/${definition}/properties/${member}`, raw);
    if (why.length === 0) good[member] = raw;
    else problems.push(`${label}.${member}: ${why.join('; ')} (got ${brief(raw, 60)})`);
  }
  return { good, problems };
}

function merge(
  meta: { good: JsonObject; problems: string[] },
  core: { good: JsonObject; problems: string[] },
  members: string[]
): Reading {
  const values: JsonObject = {};
  const sources: Record<string, CarrierName> = {};
  for (const member of members) {
    if (member in meta.good) {
      values[member] = meta.good[member];
      sources[member] = 'meta';
    } else if (member in core.good) {
      values[member] = core.good[member];
      sources[member] = 'core';
    }
  }
  return { values, sources, problems: [...meta.problems, ...core.problems] };
}

/** The raw `_meta` carrier value of a tool or a result (undefined when absent). */
export function metaCarrier(message: unknown): unknown {
  if (!isObject(message) || !isObject(message._meta)) return undefined;
  return message._meta[EXTENSION_ID];
}

/** A result's directive, member by member: `_meta[EXTENSION_ID]` first, then `CallToolResult._rendering`. */
export function readDirective(result: unknown): Reading {
  const members = deltaSchema().renderingMembers;
  const core = isObject(result) ? result._rendering : undefined;
  return merge(
    readMembers(metaCarrier(result), 'result._meta', 'Rendering', members),
    readMembers(core, 'result._rendering', 'Rendering', members),
    members
  );
}

/** A tool's hints, member by member: `_meta[EXTENSION_ID]` first, then `Tool.annotations`. */
export function readHints(tool: unknown): Reading {
  const members = deltaSchema().hintMembers;
  const core = isObject(tool) ? tool.annotations : undefined;
  return merge(
    readMembers(metaCarrier(tool), 'tool._meta', 'RenderingHints', members),
    readMembers(core, 'tool.annotations', 'RenderingHints', members),
    members
  );
}

export interface Continuation {
  argument: string;
  token: string;
}

/** Section 4, completeness: incomplete when `complete` is false or a continuation is present. */
export function isComplete(directive: Reading): boolean {
  return directive.values.complete !== false && directive.values.continuation === undefined;
}

export function continuationOf(directive: Reading): Continuation | undefined {
  const value = directive.values.continuation;
  return isObject(value) ? { argument: String(value.argument), token: String(value.token) } : undefined;
}

/** Section 4, effective mode. */
export function effectiveMode(hints: Reading, directive: Reading): 'verbatim' | 'summarizable' | 'unspecified' {
  const mode = directive.values.mode;
  if (typeof mode === 'string') return mode === 'summarizable' ? 'summarizable' : 'verbatim';
  if (hints.values.verbatimHint === true) return 'verbatim';
  if (hints.values.summarizeOkHint === true) return 'summarizable';
  return 'unspecified';
}

// ---------------------------------------------------------------------------------------------------- records

export interface FoundRecord {
  /** Where its array sits, indexes written as []: `document.sections[].rows[]`. */
  path: string;
  record: JsonObject;
  /** Its identity across parts and calls: its `id` member when it has one, else its canonical JSON. */
  key: string;
}

function collectObjectArrays(value: unknown, path: string, into: Set<string>): void {
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every(isObject)) into.add(path);
    for (const item of value) collectObjectArrays(item, `${path}[]`, into);
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '_rendering') continue; // the directive's copy is not data
      collectObjectArrays(child, path ? `${path}.${key}` : key, into);
    }
  }
}

/**
 * The paths of the record arrays of some structured results: the innermost arrays of objects (an array of
 * sections holding arrays of rows is a container; the rows are the records). Judged over every part together,
 * so that a part holding only an empty section does not turn sections into records.
 */
export function recordPaths(structured: unknown[]): Set<string> {
  const arrays = new Set<string>();
  for (const value of structured) collectObjectArrays(value, '', arrays);
  const paths = new Set<string>();
  for (const path of arrays) {
    const nested = [...arrays].some((other) => other !== path && other.startsWith(`${path}[]`));
    if (!nested) paths.add(path);
  }
  return paths;
}

function recordKey(path: string, record: JsonObject): string {
  const id = record.id;
  return typeof id === 'string' || typeof id === 'number' ? `${path}|id:${id}` : `${path}|${canonicalJson(record)}`;
}

/** The records of one structured result, in document order, for the given record paths. */
export function findRecords(structured: unknown, paths: Set<string>): FoundRecord[] {
  const found: FoundRecord[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      if (paths.has(path)) {
        for (const item of value) if (isObject(item)) found.push({ path, record: item, key: recordKey(path, item) });
        return;
      }
      for (const item of value) walk(item, `${path}[]`);
    } else if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (key === '_rendering') continue;
        walk(child, path ? `${path}.${key}` : key);
      }
    }
  };
  walk(structured, '');
  return found;
}

// --------------------------------------------------------------------------------------- raw JSON-RPC over HTTP

export interface RawExchange {
  status: number;
  headers: Record<string, string>;
  /** The JSON-RPC message answering the request, when one came back. */
  message?: JsonObject;
  body: string;
}

/** One JSON-RPC request POSTed as is (no SDK in between), its answer read from a JSON or an SSE response. */
export async function postJsonRpc(
  url: string,
  request: JsonObject,
  headers: Record<string, string> = {},
  timeoutMs = 15000
): Promise<RawExchange> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(request),
    signal: AbortSignal.timeout(timeoutMs)
  });
  const body = await response.text();
  const answer: RawExchange = { status: response.status, headers: Object.fromEntries(response.headers), body };
  const candidates: string[] = [];
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) candidates.push(data);
    }
  } else if (body.trim()) {
    candidates.push(body);
  }
  for (const candidate of candidates) {
    try {
      const parsed: unknown = JSON.parse(candidate);
      if (isObject(parsed) && parsed.id === request.id) answer.message = parsed;
    } catch {
      // not JSON: left in `body` for the details
    }
  }
  return answer;
}

/** The headers and `_meta` envelope of a 2026-07-28 request (no session: each request carries its context). */
export function modernRequest(
  id: number,
  method: string,
  params: JsonObject,
  capabilities: JsonObject,
  name?: string
): { request: JsonObject; headers: Record<string, string> } {
  const meta = isObject(params._meta) ? params._meta : {};
  const request = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        ...meta,
        [PROTOCOL_VERSION_KEY]: MODERN_VERSION,
        [CLIENT_INFO_KEY]: { name: 'rendering-conformance', version: '0.1.0' },
        [CLIENT_CAPABILITIES_KEY]: capabilities
      }
    }
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  return { request, headers };
}
