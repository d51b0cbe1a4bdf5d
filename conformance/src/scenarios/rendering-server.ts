/**
 * rendering-server: the suite plays the client and judges a server's side of the rendering extension
 * (sep/rendering.mdx, sections 1, 2, 5, 6 and 8).
 *
 * What it does, with the SDK's client over streamable HTTP (every message read raw, through a loose schema, so
 * that values are judged as they were on the wire):
 *
 * - asks `server/discover` (2026-07-28, raw JSON-RPC) for the capabilities, and initializes two sessions: A
 *   declares the extension, B does not;
 * - lists the tools and picks those whose `_meta` carrier says `verbatimHint: true` and that need no argument;
 * - calls each with `{}` in both sessions and follows every continuation to the end, reading the directive by the
 *   rules of section 4, and calls the first part once more in session A;
 * - on the first part that carries a continuation: presents altered tokens, the token in a third session, with
 *   other valid arguments and to another tool;
 * - reads a sample of the record URIs with `resources/read`;
 * - asks the first tool once more over 2026-07-28, with and without the extension in the per-request
 *   capabilities.
 *
 * Records are the elements of the innermost arrays of objects in `structuredContent` (the rows of a document's
 * sections, not the sections); a record's identity is its `id` member when it has one. A check that has nothing to
 * judge on this server (no paged tool, no token) is SKIPPED; merge runs against several servers so that each check
 * applies somewhere.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import {
  EXTENSION_ID,
  MODERN_VERSION,
  brief,
  canonicalJson,
  continuationOf,
  deepEqual,
  deltaSchema,
  effectiveMode,
  findRecords,
  isComplete,
  isObject,
  makeCheck,
  metaCarrier,
  modernRequest,
  postJsonRpc,
  readDirective,
  readHints,
  recordPaths,
  type Continuation,
  type FoundRecord,
  type JsonObject,
  type RawExchange,
  type Reading,
  type SpecSection
} from '../extension.ts';
import type { CheckStatus, ClientScenario, ConformanceCheck, SpecVersion } from '../types.ts';

const LOOSE = z.looseObject({});
const DECLARING = { extensions: { [EXTENSION_ID]: {} } };
const REQUEST_TIMEOUT_MS = 20000;

export interface RenderingServerOptions {
  /**
   * Other valid arguments of a tool (by tool name), each merged into the original call's arguments, to test that
   * a token is bound to those arguments. Without them, variants are derived from the tool's inputSchema (enum,
   * examples, booleans, numbers); a fixture server of the suite would declare them.
   */
  argumentVariants?: Record<string, JsonObject[]>;
  /** The most parts followed in one walk (default 50). */
  maxParts?: number;
  /** The most record URIs read (default 40). */
  maxReads?: number;
}

// ---------------------------------------------------------------------------------------------- observation

interface Outcome {
  tool: string;
  arguments: JsonObject;
  result?: JsonObject;
  error?: { code?: number; message: string };
}

const accepted = (o: Outcome): boolean => o.result !== undefined && o.result.isError !== true;
const refused = (o: Outcome): boolean => !accepted(o);

function outcomeSummary(o: Outcome): JsonObject {
  if (o.error) return { arguments: o.arguments, jsonRpcError: o.error };
  return { arguments: o.arguments, isError: o.result?.isError === true, text: clip(firstText(o.result), 200) };
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 3)}...`;
}

function textBlocks(result: JsonObject | undefined): string[] {
  const content = result?.content;
  if (!Array.isArray(content)) return [];
  return content
    .filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string);
}

function firstText(result: JsonObject | undefined): string {
  return textBlocks(result)[0] ?? '';
}

function resourceLinks(result: JsonObject | undefined): string[] {
  const content = result?.content;
  if (!Array.isArray(content)) return [];
  return content
    .filter((b) => isObject(b) && b.type === 'resource_link' && typeof b.uri === 'string')
    .map((b) => b.uri as string);
}

class Session {
  readonly label: string;
  readonly client: Client;
  private readonly transport: StreamableHTTPClientTransport;

  private constructor(label: string, client: Client, transport: StreamableHTTPClientTransport) {
    this.label = label;
    this.client = client;
    this.transport = transport;
  }

  static async open(url: string, label: string, declare: boolean): Promise<Session> {
    const client = new Client(
      { name: `rendering-conformance-${label}`, version: '0.1.0' },
      { capabilities: declare ? DECLARING : {} }
    );
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    return new Session(label, client, transport);
  }

  async request(method: string, params: JsonObject): Promise<JsonObject> {
    return (await this.client.request({ method, params } as never, LOOSE, {
      timeout: REQUEST_TIMEOUT_MS
    })) as JsonObject;
  }

  async listTools(): Promise<JsonObject[]> {
    const tools: JsonObject[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const result = await this.request('tools/list', cursor === undefined ? {} : { cursor });
      if (Array.isArray(result.tools)) tools.push(...result.tools.filter(isObject));
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    return tools;
  }

  async call(tool: string, args: JsonObject): Promise<Outcome> {
    try {
      return { tool, arguments: args, result: await this.request('tools/call', { name: tool, arguments: args }) };
    } catch (error) {
      const code = isObject(error) && typeof error.code === 'number' ? error.code : undefined;
      return {
        tool,
        arguments: args,
        error: { code, message: error instanceof Error ? error.message : String(error) }
      };
    }
  }

  async close(): Promise<void> {
    try {
      await this.transport.terminateSession(); // DELETE: the server may forget the session now
    } catch {
      // a server without session termination answers 405; nothing to do
    }
    try {
      await this.client.close();
    } catch {
      // already gone
    }
  }
}

interface Part {
  outcome: Outcome;
  directive: Reading;
  continuation?: Continuation;
  complete: boolean;
}

interface Walk {
  parts: Part[];
  /** Why the walk stopped. */
  end: 'complete' | 'incomplete-without-continuation' | 'error' | 'part-limit' | 'repeated-token';
}

function toPart(outcome: Outcome): Part {
  const directive = readDirective(outcome.result);
  return { outcome, directive, continuation: continuationOf(directive), complete: isComplete(directive) };
}

async function walk(session: Session, tool: string, args: JsonObject, maxParts: number): Promise<Walk> {
  const parts: Part[] = [];
  const seen = new Set<string>();
  let next: JsonObject = args;
  for (;;) {
    const part = toPart(await session.call(tool, next));
    parts.push(part);
    if (refused(part.outcome)) return { parts, end: 'error' };
    if (part.complete) return { parts, end: 'complete' };
    if (!part.continuation) return { parts, end: 'incomplete-without-continuation' };
    if (seen.has(part.continuation.token)) return { parts, end: 'repeated-token' };
    if (parts.length >= maxParts) return { parts, end: 'part-limit' };
    seen.add(part.continuation.token);
    next = { ...args, [part.continuation.argument]: part.continuation.token };
  }
}

interface ToolRun {
  name: string;
  tool: JsonObject;
  a: Walk;
  b: Walk;
  again: Part;
  paths: Set<string>;
}

interface TokenProbe {
  kind: 'tampered' | 'other-session' | 'other-arguments' | 'other-tool';
  what: string;
  outcome: Outcome;
}

interface RecordRead {
  uri: string;
  ok: boolean;
  problem?: string;
  /** true: the resource holds the record whole; false: it holds a larger version of it; undefined: no evidence. */
  whole?: boolean;
}

interface ModernComparison {
  tool: string;
  declaring: RawExchange;
  plain: RawExchange;
}

interface Observations {
  serverUrl: string;
  discover?: RawExchange;
  discoverError?: string;
  initializeCapabilities?: JsonObject;
  tools: JsonObject[];
  runs: ToolRun[];
  probes: TokenProbe[];
  probeNotes: string[];
  probedToken?: { tool: string; continuation: Continuation };
  reads: RecordRead[];
  modern?: ModernComparison;
  modernError?: string;
  fatal?: string;
}

// ------------------------------------------------------------------------------------------------- helpers

function hintCarrierHasVerbatim(tool: JsonObject): boolean {
  const meta = metaCarrier(tool);
  return isObject(meta) && meta.verbatimHint === true;
}

function requiredArguments(tool: JsonObject): string[] {
  const schema = tool.inputSchema;
  return isObject(schema) && Array.isArray(schema.required) ? schema.required.map(String) : [];
}

function properties(tool: JsonObject): JsonObject {
  const schema = tool.inputSchema;
  return isObject(schema) && isObject(schema.properties) ? schema.properties : {};
}

/** The JSON types a schema admits, looking through anyOf/oneOf; "any" when it does not constrain the type. */
function schemaTypes(schema: unknown): Set<string> {
  const types = new Set<string>();
  if (!isObject(schema)) return new Set(['any']);
  if (typeof schema.type === 'string') types.add(schema.type);
  else if (Array.isArray(schema.type)) for (const t of schema.type) types.add(String(t));
  for (const key of ['anyOf', 'oneOf']) {
    const options = schema[key];
    if (Array.isArray(options)) for (const option of options) for (const t of schemaTypes(option)) types.add(t);
  }
  if (types.size === 0 && schema.type === undefined && schema.anyOf === undefined && schema.oneOf === undefined) {
    types.add(schema.$ref !== undefined || schema.properties !== undefined ? 'object' : 'any');
  }
  return types;
}

function structuredOf(part: Part): unknown {
  return part.outcome.result?.structuredContent;
}

function allParts(run: ToolRun): Part[] {
  return [...run.a.parts, ...run.b.parts, run.again];
}

function recordsOf(part: Part, paths: Set<string>): FoundRecord[] {
  return findRecords(structuredOf(part), paths);
}

function walkRecords(walkValue: Walk, paths: Set<string>): FoundRecord[] {
  return walkValue.parts.filter((p) => accepted(p.outcome)).flatMap((p) => recordsOf(p, paths));
}

function isPaged(run: ToolRun): boolean {
  return run.a.parts.length > 1 || run.a.parts.some((p) => !p.complete);
}

function hasDirective(result: JsonObject | undefined): boolean {
  if (!result) return false;
  const structured = result.structuredContent;
  return (
    metaCarrier(result) !== undefined ||
    (result._rendering !== undefined && result._rendering !== null) ||
    (isObject(structured) && structured._rendering !== undefined)
  );
}

function pageState(part: Part): { total?: number; returned?: number; complete?: unknown } | undefined {
  const structured = structuredOf(part);
  if (!isObject(structured) || !isObject(structured.page)) return undefined;
  const page = structured.page;
  return {
    total: typeof page.total === 'number' ? page.total : undefined,
    returned: typeof page.returned === 'number' ? page.returned : undefined,
    complete: page.complete
  };
}

function recordLabel(record: JsonObject): string | undefined {
  for (const key of ['label', 'title', 'name', 'id']) {
    const value = record[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return undefined;
}

function primitiveValues(record: JsonObject): (string | number | boolean)[] {
  const values: (string | number | boolean)[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') values.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
  };
  if (Array.isArray(record.values)) visit(record.values);
  else
    for (const [key, value] of Object.entries(record)) if (!['id', 'uri', 'kind', 'level'].includes(key)) visit(value);
  return values;
}

/** The line of `text` holding position `at`. */
function lineAt(text: string, at: number): string {
  const end = text.indexOf('\n', at);
  return text.slice(text.lastIndexOf('\n', at) + 1, end < 0 ? undefined : end);
}

function appears(region: string, value: string | number | boolean): boolean {
  const text = String(value);
  if (text === '') return true;
  if (region.includes(text)) return true;
  if (typeof value === 'number') return region.replace(/(?<=\d)[ ,\u00a0\u202f_'](?=\d{3})/g, '').includes(text);
  return false;
}

function tamper(token: string): { what: string; token: string }[] {
  const variants: { what: string; token: string }[] = [];
  // A character in the middle (never next to a separator, where a base64 segment may end in padding bits).
  let index = Math.floor(token.length / 2);
  const separator = (c: string | undefined): boolean => c === undefined || '.-_~'.includes(c);
  while (index > 0 && (separator(token[index]) || separator(token[index + 1]))) index--;
  if (token.length > 2) {
    const replacement = token[index] === 'A' ? 'g' : 'A';
    variants.push({
      what: `character ${index} changed`,
      token: `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`
    });
  }
  if (token.length > 1) variants.push({ what: 'last character removed', token: token.slice(0, -1) });
  variants.push({ what: 'one character appended', token: `${token}A` });
  return variants;
}

function argumentVariants(tool: JsonObject, continuationArgument: string, extra: JsonObject[]): JsonObject[] {
  const variants = [...extra];
  const required = requiredArguments(tool);
  for (const [name, schema] of Object.entries(properties(tool))) {
    if (name === continuationArgument || required.includes(name) || !isObject(schema)) continue;
    const values: unknown[] = [];
    if (Array.isArray(schema.enum)) values.push(...schema.enum.filter((v) => !deepEqual(v, schema.default)));
    if (Array.isArray(schema.examples)) values.push(...schema.examples.filter((v) => !deepEqual(v, schema.default)));
    const types = schemaTypes(schema);
    if (types.has('boolean')) values.push(schema.default !== true);
    if (types.has('integer') || types.has('number'))
      values.push(typeof schema.default === 'number' ? schema.default + 1 : 1);
    for (const value of values.slice(0, 2)) variants.push({ [name]: value });
  }
  return variants.slice(0, 4);
}

function tellsToStartAgain(text: string): boolean {
  const lower = text.toLowerCase();
  return (
    /\bwithout\b/.test(lower) &&
    /\b(again|start over|restart|anew|from the (start|beginning)|first (page|part))\b/.test(lower)
  );
}

/** Searches `value` (parsed resource text) for the record: whole (an equal object), larger (same id, more members). */
function findInResource(value: unknown, record: JsonObject): boolean | undefined {
  let verdict: boolean | undefined;
  const visit = (node: unknown): void => {
    if (verdict === true) return;
    if (Array.isArray(node)) node.forEach(visit);
    else if (isObject(node)) {
      if (deepEqual(node, record)) {
        verdict = true;
        return;
      }
      if (node.id !== undefined && node.id === record.id) {
        const shared = Object.keys(record).every((key) => deepEqual(node[key], record[key]));
        if (shared && Object.keys(node).length > Object.keys(record).length) verdict = false;
      }
      Object.values(node).forEach(visit);
    }
  };
  visit(value);
  return verdict;
}

// -------------------------------------------------------------------------------------------------- judging

interface Judgement {
  status: CheckStatus;
  details: Record<string, unknown>;
  error?: string;
}

const LIMIT = 8;

function verdict(failures: string[], applied: number, details: Record<string, unknown>, skipReason: string): Judgement {
  if (failures.length > 0) {
    return {
      status: 'FAILURE',
      details: { ...details, failures: failures.slice(0, LIMIT), failureCount: failures.length },
      error: failures[0]
    };
  }
  if (applied === 0) return { status: 'SKIPPED', details: { ...details, skipped: skipReason } };
  return { status: 'SUCCESS', details: { ...details, judged: applied } };
}

type Judge = (o: Observations) => Judgement;

const judges: { id: string; section: SpecSection; name: string; description: string; judge: Judge }[] = [];

function define(id: string, section: SpecSection, name: string, description: string, judge: Judge): void {
  judges.push({ id, section, name, description, judge });
}

// 1. Capability ---------------------------------------------------------------------------------------------

define(
  'sep-0000-server-declares-extension',
  '1-capability',
  'ServerDeclaresExtension',
  `The server declares capabilities.extensions["${EXTENSION_ID}"] under every protocol version that defines it (2026-07-28)`,
  (o) => {
    const result = isObject(o.discover?.message?.result) ? o.discover.message.result : undefined;
    const versions = Array.isArray(result?.supportedVersions) ? result.supportedVersions.map(String) : [];
    const capabilities = isObject(result?.capabilities) ? result.capabilities : undefined;
    const details = {
      discover: result
        ? { supportedVersions: versions, capabilities }
        : {
            httpStatus: o.discover?.status,
            error: o.discover?.message?.error ?? o.discoverError ?? brief(o.discover?.body)
          },
      initializeCapabilities: o.initializeCapabilities
    };
    if (!result || !versions.includes(MODERN_VERSION)) {
      return verdict(
        [],
        0,
        details,
        `the server does not speak ${MODERN_VERSION}, the only version defining capabilities.extensions`
      );
    }
    const extensions = capabilities?.extensions;
    const ok = isObject(extensions) && isObject(extensions[EXTENSION_ID]);
    return verdict(
      ok ? [] : [`the ${MODERN_VERSION} server/discover capabilities lack extensions[${JSON.stringify(EXTENSION_ID)}]`],
      1,
      details,
      ''
    );
  }
);

define(
  'sep-0000-server-result-independent-of-declaration',
  '1-capability',
  'ServerResultIndependentOfDeclaration',
  'A client that does not declare the extension gets the same records, and no refusal',
  (o) => {
    const failures: string[] = [];
    const compared: JsonObject[] = [];
    for (const run of o.runs) {
      const aRefused = run.a.parts.filter((p) => refused(p.outcome)).length;
      const bRefused = run.b.parts.filter((p) => refused(p.outcome)).length;
      if (bRefused > aRefused)
        failures.push(`${run.name}: refused to the client without the extension, not to the one with it`);
      const tokens = [...run.a.parts, ...run.b.parts].flatMap((p) => (p.continuation ? [p.continuation.token] : []));
      const mask = (text: string): string => tokens.reduce((t, token) => t.split(token).join('<token>'), text);
      const a = walkRecords(run.a, run.paths).map((r) => canonicalJson(r.record));
      const b = walkRecords(run.b, run.paths).map((r) => canonicalJson(r.record));
      if (a.length > 0 || b.length > 0) {
        if (a.join('\n') !== b.join('\n')) {
          const at = a.findIndex((value, index) => value !== b[index]);
          failures.push(
            `${run.name}: ${a.length} records with the extension declared, ${b.length} without; first difference at record ${at >= 0 ? at : Math.min(a.length, b.length)}`
          );
        }
      } else {
        const textA = run.a.parts.map((p) => mask(textBlocks(p.outcome.result).join('\n'))).join('\n');
        const textB = run.b.parts.map((p) => mask(textBlocks(p.outcome.result).join('\n'))).join('\n');
        if (textA !== textB) failures.push(`${run.name}: the text content differs between the two clients`);
      }
      compared.push({
        tool: run.name,
        partsWith: run.a.parts.length,
        partsWithout: run.b.parts.length,
        records: a.length
      });
    }
    let modern: JsonObject | undefined;
    if (o.modern) {
      const read = (x: RawExchange): { ok: boolean; result?: JsonObject } => {
        const result = isObject(x.message?.result) ? x.message.result : undefined;
        return { ok: result !== undefined && result.isError !== true, result };
      };
      const d = read(o.modern.declaring);
      const p = read(o.modern.plain);
      modern = { tool: o.modern.tool, acceptedWithDeclaration: d.ok, acceptedWithout: p.ok };
      if (d.ok && !p.ok) failures.push(`${o.modern.tool} over ${MODERN_VERSION}: refused without the declaration only`);
      if (d.ok && p.ok) {
        const paths = recordPaths([d.result?.structuredContent, p.result?.structuredContent]);
        const rd = findRecords(d.result?.structuredContent, paths).map((r) => canonicalJson(r.record));
        const rp = findRecords(p.result?.structuredContent, paths).map((r) => canonicalJson(r.record));
        if (rd.join('\n') !== rp.join('\n'))
          failures.push(`${o.modern.tool} over ${MODERN_VERSION}: the records differ`);
        modern.records = rd.length;
      }
    }
    return verdict(
      failures,
      o.runs.length,
      { compared, modern, modernError: o.modernError },
      'no verbatim tool callable without arguments'
    );
  }
);

// 2. Carriers -----------------------------------------------------------------------------------------------

define(
  'sep-0000-server-tool-carrier',
  '2-carriers',
  'ServerToolCarrier',
  `Every rendering hint a tool has is sent in Tool._meta["${EXTENSION_ID}"]`,
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    const hinted: JsonObject[] = [];
    for (const tool of o.tools) {
      const meta = metaCarrier(tool);
      const annotations = isObject(tool.annotations) ? tool.annotations : {};
      const core = deltaSchema().hintMembers.filter((m) => annotations[m] !== undefined && annotations[m] !== null);
      const inMeta = isObject(meta)
        ? deltaSchema().hintMembers.filter((m) => meta[m] !== undefined && meta[m] !== null)
        : [];
      if (core.length === 0 && inMeta.length === 0) continue;
      applied++;
      hinted.push({ tool: tool.name, annotations: core, meta: inMeta });
      const missing = core.filter((m) => !inMeta.includes(m));
      if (missing.length > 0)
        failures.push(`${String(tool.name)}: ${missing.join(', ')} only in annotations, not in the _meta carrier`);
    }
    return verdict(failures, applied, { hinted }, 'no tool has a rendering hint in any carrier');
  }
);

define(
  'sep-0000-server-result-carrier',
  '2-carriers',
  'ServerResultCarrier',
  `Every result given a directive carries it in CallToolResult._meta["${EXTENSION_ID}"]`,
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      for (const part of allParts(run)) {
        const result = part.outcome.result;
        if (!hasDirective(result)) continue;
        applied++;
        if (!isObject(metaCarrier(result))) {
          const where = result?._rendering !== undefined ? '_rendering' : 'structuredContent._rendering';
          failures.push(
            `${run.name} ${brief(part.outcome.arguments, 80)}: a directive in ${where} but none in the _meta carrier`
          );
        }
      }
    }
    return verdict(failures, applied, {}, 'no result carried a directive anywhere');
  }
);

define(
  'sep-0000-server-values-well-formed',
  '2-carriers',
  'ServerValuesWellFormed',
  'Every carrier value (and its core form) conforms to the types of section 3',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    const schema = deltaSchema();
    for (const tool of o.tools) {
      const meta = metaCarrier(tool);
      if (meta !== undefined) {
        applied++;
        for (const p of schema.problems('/$defs/RenderingHints', meta))
          failures.push(`${String(tool.name)} _meta: ${p}`);
      }
      const annotations = isObject(tool.annotations) ? tool.annotations : {};
      for (const member of schema.hintMembers) {
        if (annotations[member] === undefined) continue;
        applied++;
        for (const p of schema.problems(`/$defs/ToolAnnotations/properties/${member}`, annotations[member])) {
          failures.push(`${String(tool.name)} annotations.${member}: ${p}`);
        }
      }
    }
    const results = o.runs.flatMap((run) => allParts(run).map((p) => ({ run: run.name, part: p })));
    for (const probe of o.probes) results.push({ run: probe.outcome.tool, part: toPart(probe.outcome) });
    for (const { run, part } of results) {
      const result = part.outcome.result;
      if (!result) continue;
      const meta = metaCarrier(result);
      if (meta !== undefined) {
        applied++;
        for (const p of schema.problems('/$defs/Rendering', meta)) failures.push(`${run} result _meta: ${p}`);
      }
      if (result._rendering !== undefined) {
        applied++;
        for (const p of schema.problems('/$defs/CallToolResult/properties/_rendering', result._rendering)) {
          failures.push(`${run} result _rendering: ${p}`);
        }
      }
    }
    return verdict(failures, applied, { schema: 'schema/delta/rendering.schema.json' }, 'no carrier value was sent');
  }
);

define(
  'sep-0000-server-core-form-agrees',
  '2-carriers',
  'ServerCoreFormAgrees',
  'A value sent both in a carrier and in its core form is the same in both',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const tool of o.tools) {
      const meta = metaCarrier(tool);
      const annotations = isObject(tool.annotations) ? tool.annotations : {};
      if (!isObject(meta)) continue;
      for (const member of deltaSchema().hintMembers) {
        if (meta[member] == null || annotations[member] == null) continue;
        applied++;
        if (!deepEqual(meta[member], annotations[member])) {
          failures.push(
            `${String(tool.name)}.${member}: ${brief(meta[member])} in _meta, ${brief(annotations[member])} in annotations`
          );
        }
      }
    }
    for (const run of o.runs) {
      for (const part of allParts(run)) {
        const meta = metaCarrier(part.outcome.result);
        const core = part.outcome.result?._rendering;
        if (!isObject(meta) || !isObject(core)) continue;
        for (const member of deltaSchema().renderingMembers) {
          if (meta[member] == null || core[member] == null) continue;
          applied++;
          if (!deepEqual(meta[member], core[member])) {
            failures.push(
              `${run.name} result ${member}: ${brief(meta[member])} in _meta, ${brief(core[member])} in _rendering`
            );
          }
        }
      }
    }
    return verdict(failures, applied, {}, 'no value was sent both in a carrier and in its core form');
  }
);

// 5. Bounded results ----------------------------------------------------------------------------------------

define(
  'sep-0000-server-cuts-between-records',
  '5-bounded-results',
  'ServerCutsBetweenRecords',
  'Each part of a paged result holds whole records: valid against the outputSchema, no record split across parts, equal to the record its URI resolves to',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    const evidence: JsonObject[] = [];
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    for (const run of o.runs.filter(isPaged)) {
      applied++;
      let validated = 0;
      if (isObject(run.tool.outputSchema)) {
        let validate: (((value: unknown) => boolean) & { errors?: unknown }) | undefined;
        try {
          validate = ajv.compile(run.tool.outputSchema);
        } catch (error) {
          evidence.push({ tool: run.name, outputSchema: `not compiled: ${String(error)}` });
        }
        for (const [index, part] of run.a.parts.entries()) {
          if (!validate || !accepted(part.outcome) || structuredOf(part) === undefined) continue;
          validated++;
          if (!validate(structuredOf(part))) {
            failures.push(
              `${run.name} part ${index + 1}: structuredContent does not match the outputSchema (${brief(validate.errors, 200)})`
            );
          }
        }
      }
      const seen = new Map<string, number>();
      for (const [index, part] of run.a.parts.entries()) {
        for (const record of recordsOf(part, run.paths)) {
          const earlier = seen.get(record.key);
          if (earlier !== undefined && earlier !== index) {
            failures.push(
              `${run.name}: record ${record.key} appears in parts ${earlier + 1} and ${index + 1} (split or repeated)`
            );
          }
          seen.set(record.key, index);
        }
      }
      const cut = o.reads.filter((r) => r.whole === false);
      for (const read of cut) failures.push(`${read.uri}: the record in the result lacks members its resource has`);
      evidence.push({
        tool: run.name,
        parts: run.a.parts.length,
        partsValidatedAgainstOutputSchema: validated,
        recordsConfirmedWholeByResourcesRead: o.reads.filter((r) => r.whole === true).length
      });
    }
    return verdict(failures, applied, { evidence }, 'no paged tool');
  }
);

define(
  'sep-0000-server-incomplete-flagged',
  '5-bounded-results',
  'ServerIncompleteFlagged',
  'Every part followed by more records says complete: false, and no result says complete with fewer records than its stated total',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      const parts = run.a.parts;
      for (const [index, part] of parts.entries()) {
        if (index === parts.length - 1) continue;
        applied++;
        if (part.directive.values.complete !== false) {
          failures.push(
            `${run.name} part ${index + 1} of ${parts.length}: more parts follow but complete is ${brief(part.directive.values.complete)}`
          );
        }
      }
      const last = parts[parts.length - 1];
      const state = last ? pageState(last) : undefined;
      if (last && state?.total !== undefined && accepted(last.outcome)) {
        applied++;
        const count = walkRecords(run.a, run.paths).length;
        if (last.complete && count < state.total) {
          failures.push(
            `${run.name}: the walk ended complete with ${count} records, but the result states a total of ${state.total}`
          );
        }
      }
    }
    return verdict(failures, applied, {}, 'no paged tool and no result stating its total');
  }
);

define(
  'sep-0000-server-no-continuation-when-complete',
  '5-bounded-results',
  'ServerNoContinuationWhenComplete',
  'No directive carries a continuation unless its complete is false',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      for (const part of allParts(run)) {
        const result = part.outcome.result;
        for (const [where, value] of [
          ['_meta', metaCarrier(result)],
          ['_rendering', result?._rendering]
        ] as const) {
          if (!isObject(value)) continue;
          applied++;
          if (value.continuation != null && value.complete !== false) {
            failures.push(`${run.name} ${where}: a continuation with complete ${brief(value.complete)}`);
          }
        }
      }
    }
    return verdict(failures, applied, {}, 'no result carried a directive');
  }
);

define(
  'sep-0000-server-continuation-offered',
  '5-bounded-results',
  'ServerContinuationOffered',
  'Every part with complete: false carries a continuation',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      for (const [index, part] of run.a.parts.entries()) {
        if (part.directive.values.complete !== false) continue;
        applied++;
        if (!part.continuation)
          failures.push(`${run.name} part ${index + 1}: complete is false and no continuation is offered`);
      }
    }
    return verdict(failures, applied, {}, 'no result had complete: false');
  }
);

define(
  'sep-0000-server-continuation-argument-declared',
  '5-bounded-results',
  'ServerContinuationArgumentDeclared',
  'A tool that returns continuations declares the continuation argument in its inputSchema as an optional string',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    const declared: JsonObject[] = [];
    for (const run of o.runs) {
      const names = new Set(allParts(run).flatMap((p) => (p.continuation ? [p.continuation.argument] : [])));
      for (const name of names) {
        applied++;
        const schema = properties(run.tool)[name];
        declared.push({ tool: run.name, argument: name, schema: schema ?? null });
        if (schema === undefined)
          failures.push(`${run.name}: the continuation argument ${JSON.stringify(name)} is not in its inputSchema`);
        else if (!schemaTypes(schema).has('string') && !schemaTypes(schema).has('any')) {
          failures.push(`${run.name}: ${JSON.stringify(name)} is declared, but not as a string`);
        }
        if (requiredArguments(run.tool).includes(name))
          failures.push(`${run.name}: ${JSON.stringify(name)} is required`);
      }
    }
    return verdict(failures, applied, { declared }, 'no tool returned a continuation');
  }
);

define(
  'sep-0000-server-parts-partition',
  '5-bounded-results',
  'ServerPartsPartition',
  'Following every continuation gives every record exactly once, in the same order in two independent walks',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    const walks: JsonObject[] = [];
    for (const run of o.runs.filter(isPaged)) {
      applied++;
      const a = walkRecords(run.a, run.paths);
      const b = walkRecords(run.b, run.paths);
      walks.push({ tool: run.name, parts: run.a.parts.length, records: a.length, end: run.a.end });
      if (run.a.end !== 'complete') failures.push(`${run.name}: the walk did not reach a complete part (${run.a.end})`);
      const counts = new Map<string, number>();
      for (const r of a) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
      const repeated = [...counts].filter(([, n]) => n > 1).map(([key]) => key);
      if (repeated.length > 0)
        failures.push(`${run.name}: ${repeated.length} record(s) in more than one part, first ${repeated[0]}`);
      if (a.map((r) => canonicalJson(r.record)).join('\n') !== b.map((r) => canonicalJson(r.record)).join('\n')) {
        failures.push(
          `${run.name}: two walks in two sessions gave different record sequences (${a.length} and ${b.length} records)`
        );
      }
      const total = run.a.parts.map(pageState).find((s) => s?.total !== undefined)?.total;
      if (total !== undefined && run.a.end === 'complete' && a.length !== total) {
        failures.push(`${run.name}: ${a.length} records over all parts, but the result states a total of ${total}`);
      }
    }
    return verdict(failures, applied, { walks }, 'no paged tool');
  }
);

define(
  'sep-0000-server-record-uris-resolve',
  '5-bounded-results',
  'ServerRecordUrisResolve',
  'Every record has a URI, and record URIs resolve through resources/read',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      const records = walkRecords(run.a, run.paths);
      if (records.length === 0) continue;
      applied++;
      const without = records.filter((r) => typeof r.record.uri !== 'string');
      if (without.length > 0)
        failures.push(
          `${run.name}: ${without.length} of ${records.length} records have no uri (first ${without[0].key})`
        );
    }
    for (const read of o.reads) if (!read.ok) failures.push(`${read.uri}: ${read.problem ?? 'not resolved'}`);
    return verdict(
      failures,
      applied,
      { read: o.reads.length, resolved: o.reads.filter((r) => r.ok).length },
      'no structured records'
    );
  }
);

define(
  'sep-0000-server-record-uris-stable',
  '5-bounded-results',
  'ServerRecordUrisStable',
  'A record has the same URI in every part and every call that returns it (two sessions, and a repeated call)',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      const uris = new Map<string, string>();
      const sources: [string, FoundRecord[]][] = [
        ['session A', walkRecords(run.a, run.paths)],
        ['session B', walkRecords(run.b, run.paths)],
        ['repeated call', recordsOf(run.again, run.paths)]
      ];
      for (const [source, records] of sources) {
        for (const r of records) {
          if (typeof r.record.uri !== 'string') continue;
          applied++;
          const known = uris.get(r.key);
          if (known === undefined) uris.set(r.key, r.record.uri);
          else if (known !== r.record.uri)
            failures.push(`${run.name} ${r.key}: ${known}, then ${r.record.uri} (${source})`);
        }
      }
    }
    return verdict(failures, applied, {}, 'no record has a URI');
  }
);

define(
  'sep-0000-server-record-links',
  '5-bounded-results',
  'ServerRecordLinks',
  'Each part returns the URIs of its records as resource_link content blocks',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      for (const [index, part] of run.a.parts.entries()) {
        const uris = recordsOf(part, run.paths).flatMap((r) =>
          typeof r.record.uri === 'string' ? [r.record.uri] : []
        );
        if (uris.length === 0) continue;
        applied++;
        const links = new Set(resourceLinks(part.outcome.result));
        const missing = uris.filter((uri) => !links.has(uri));
        if (missing.length > 0) {
          failures.push(
            `${run.name} part ${index + 1}: ${missing.length} of ${uris.length} record URIs have no resource_link block (first ${missing[0]})`
          );
        }
      }
    }
    return verdict(failures, applied, {}, 'no record has a URI');
  }
);

// 6. Reaching the model ---------------------------------------------------------------------------------------

define(
  'sep-0000-server-structured-copy',
  '6-reaching-the-model',
  'ServerStructuredCopy',
  'A result with a directive and object structuredContent repeats the directive there under _rendering',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      for (const [index, part] of [...run.a.parts, run.again].entries()) {
        const meta = metaCarrier(part.outcome.result);
        const structured = structuredOf(part);
        if (!isObject(meta) || !isObject(structured)) continue;
        applied++;
        if (structured._rendering === undefined)
          failures.push(`${run.name} part ${index + 1}: no structuredContent._rendering`);
        else if (!deepEqual(structured._rendering, meta)) {
          failures.push(
            `${run.name} part ${index + 1}: structuredContent._rendering ${brief(structured._rendering)} differs from the carrier ${brief(meta)}`
          );
        }
      }
    }
    return verdict(failures, applied, {}, 'no result had both a directive and object structuredContent');
  }
);

define(
  'sep-0000-server-structured-copy-declared',
  '6-reaching-the-model',
  'ServerStructuredCopyDeclared',
  'A tool that repeats the directive in structuredContent and declares an outputSchema declares _rendering there as an optional object',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      const copies = allParts(run).some(
        (p) => isObject(structuredOf(p)) && (structuredOf(p) as JsonObject)._rendering !== undefined
      );
      const schema = run.tool.outputSchema;
      if (!copies || !isObject(schema)) continue;
      applied++;
      const member = isObject(schema.properties) ? schema.properties._rendering : undefined;
      const required = Array.isArray(schema.required) ? schema.required : [];
      if (member === undefined) failures.push(`${run.name}: its outputSchema does not declare _rendering`);
      else if (!schemaTypes(member).has('object') && !schemaTypes(member).has('any')) {
        failures.push(`${run.name}: its outputSchema declares _rendering, but not as an object`);
      }
      if (required.includes('_rendering')) failures.push(`${run.name}: its outputSchema makes _rendering required`);
    }
    return verdict(failures, applied, {}, 'no tool with an outputSchema repeated the directive in structuredContent');
  }
);

define(
  'sep-0000-server-text-framing',
  '6-reaching-the-model',
  'ServerTextFraming',
  'The text of a result with a directive begins with the directive written out: mode, guidance, null text, completeness and how to continue',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      const hints = readHints(run.tool);
      for (const [index, part] of [...run.a.parts, run.again].entries()) {
        const result = part.outcome.result;
        if (!accepted(part.outcome) || !hasDirective(result)) continue;
        applied++;
        const where = `${run.name} part ${index + 1}`;
        const text = firstText(result);
        if (!text) {
          failures.push(`${where}: no text content`);
          continue;
        }
        const records = recordsOf(part, run.paths);
        let end = text.length;
        if (records.length > 0) {
          const label = recordLabel(records[0].record);
          const value = primitiveValues(records[0].record).find((v) => String(v).length > 0 && String(v) !== label);
          if (label) {
            let at = text.indexOf(label);
            while (at >= 0) {
              if (value === undefined || appears(lineAt(text, at), value)) break;
              at = text.indexOf(label, at + 1);
            }
            if (at >= 0) end = at;
          }
        }
        const head = text.slice(0, end);
        const lowerHead = head.toLowerCase();
        const missing: string[] = [];
        const mode = effectiveMode(hints, part.directive);
        const modeWord = typeof part.directive.values.mode === 'string' ? part.directive.values.mode : mode;
        if (modeWord !== 'unspecified' && !lowerHead.includes(String(modeWord).toLowerCase()))
          missing.push(`the mode (${modeWord})`);
        const guidance = part.directive.values.guidance;
        if (
          typeof guidance === 'string' &&
          !head.includes(guidance) &&
          !head.includes(JSON.stringify(guidance).slice(1, -1))
        ) {
          missing.push('the guidance');
        }
        const nullText =
          typeof part.directive.values.nullDisplay === 'string' ? part.directive.values.nullDisplay : '-';
        if (nullText && !head.includes(nullText)) missing.push(`the null text (${JSON.stringify(nullText)})`);
        if (part.complete) {
          if (!/\bcomplete\b/.test(lowerHead)) missing.push('that the result is complete');
        } else {
          if (!/\b(partial|incomplete|not complete|more follow)/.test(lowerHead))
            missing.push('that the result is partial');
          if (part.continuation) {
            if (!head.includes(part.continuation.token)) missing.push('the continuation token');
            if (!head.includes(part.continuation.argument)) missing.push('the continuation argument');
          }
        }
        if (missing.length > 0) failures.push(`${where}: the text before the first record lacks ${missing.join(', ')}`);
      }
    }
    return verdict(failures, applied, {}, 'no result carried a directive');
  }
);

define(
  'sep-0000-server-text-holds-records',
  '6-reaching-the-model',
  'ServerTextHoldsRecords',
  'The text of a result holds the records of structuredContent, in the same order, with their values',
  (o) => {
    const failures: string[] = [];
    let applied = 0;
    for (const run of o.runs) {
      for (const [index, part] of [...run.a.parts, run.again].entries()) {
        const records = recordsOf(part, run.paths);
        if (!accepted(part.outcome) || !hasDirective(part.outcome.result) || records.length === 0) continue;
        applied++;
        const where = `${run.name} part ${index + 1}`;
        const text = textBlocks(part.outcome.result).join('\n');
        let from = 0;
        for (const r of records) {
          const label = recordLabel(r.record) ?? canonicalJson(r.record);
          const values = primitiveValues(r.record);
          // The first occurrence of the label, after the previous record, whose line shows every value.
          let at = text.indexOf(label, from);
          let firstLine: string | undefined;
          while (at >= 0) {
            const line = lineAt(text, at);
            firstLine ??= line;
            if (values.every((v) => appears(line, v))) break;
            at = text.indexOf(label, at + 1);
          }
          if (at < 0) {
            const absent = firstLine === undefined ? [] : values.filter((v) => !appears(firstLine as string, v));
            failures.push(
              firstLine === undefined
                ? `${where}: record ${r.key} (${JSON.stringify(label)}) is missing or out of order`
                : `${where}: record ${r.key} is shown without ${absent.map((v) => JSON.stringify(v)).join(', ')}`
            );
            break;
          }
          from = at + label.length;
        }
      }
    }
    return verdict(failures, applied, {}, 'no result with a directive had structured records');
  }
);

// 8. Security --------------------------------------------------------------------------------------------------

function probeJudge(kinds: TokenProbe['kind'][], mustHave?: TokenProbe['kind']): Judge {
  return (o) => {
    const probes = o.probes.filter((p) => kinds.includes(p.kind));
    const details = {
      token: o.probedToken ? { tool: o.probedToken.tool, argument: o.probedToken.continuation.argument } : null,
      probes: probes.map((p) => ({ kind: p.kind, what: p.what, ...outcomeSummary(p.outcome) })),
      notes: o.probeNotes
    };
    if (!o.probedToken) return verdict([], 0, details, 'no tool returned a continuation token');
    const failures = probes
      .filter((p) => accepted(p.outcome))
      .map((p) => `${p.kind} (${p.what}): accepted, ${JSON.stringify(clip(firstText(p.outcome.result), 100))}`);
    if (mustHave && !probes.some((p) => p.kind === mustHave)) failures.push(`the ${mustHave} probe could not run`);
    return verdict(failures, probes.length, details, 'no probe could run');
  };
}

define(
  'sep-0000-server-rejects-tampered-token',
  '8-security',
  'ServerRejectsTamperedToken',
  'A continuation token changed by one character, shortened or lengthened is rejected',
  probeJudge(['tampered'])
);

define(
  'sep-0000-server-token-bound',
  '8-security',
  'ServerTokenBound',
  'A token is rejected in another session, with other arguments, and by another tool',
  probeJudge(['other-session', 'other-arguments', 'other-tool'], 'other-session')
);

define(
  'sep-0000-server-rejected-token-error',
  '8-security',
  'ServerRejectedTokenError',
  'A rejected token produces a tool error (isError) that tells the caller to start again without it',
  (o) => {
    const rejections = o.probes.filter((p) => refused(p.outcome));
    const failures: string[] = [];
    for (const p of rejections) {
      if (p.outcome.error)
        failures.push(`${p.kind} (${p.what}): a JSON-RPC error (${p.outcome.error.message}), not a tool error`);
      else {
        const text = textBlocks(p.outcome.result).join('\n');
        if (!tellsToStartAgain(text))
          failures.push(
            `${p.kind} (${p.what}): ${JSON.stringify(clip(text, 160))} does not tell to start again without the token`
          );
      }
    }
    return verdict(
      failures,
      rejections.length,
      { rejections: rejections.map((p) => ({ kind: p.kind, what: p.what, ...outcomeSummary(p.outcome) })) },
      'no token was rejected'
    );
  }
);

/** The check ids this scenario emits, in order. */
export const SERVER_CHECK_IDS: string[] = judges.map((j) => j.id);

// ----------------------------------------------------------------------------------------------- the scenario

export class RenderingServerScenario implements ClientScenario {
  name = 'rendering-server';
  specVersions: SpecVersion[] = ['extension'];
  description = `Judges a server's side of the rendering extension (sep/rendering.mdx, sections 1, 2, 5, 6, 8).

**Server Implementation Requirements:**

Advertise \`${EXTENSION_ID}\` in the ${MODERN_VERSION} capabilities. Offer at least one tool that needs no argument
and declares \`verbatimHint: true\` in \`Tool._meta["${EXTENSION_ID}"]\`; ideally one with a complete result and
one that returns its result in parts with continuation tokens, whose records carry URIs that \`resources/read\`
resolves. The scenario follows every continuation, compares sessions that do and do not declare the extension, and
presents altered and misplaced tokens.`;

  private readonly options: RenderingServerOptions;

  constructor(options: RenderingServerOptions = {}) {
    this.options = options;
  }

  async run(serverUrl: string): Promise<ConformanceCheck[]> {
    const o = await this.observe(serverUrl);
    return judges.map((j) => {
      if (o.fatal) {
        return makeCheck(
          j.id,
          j.section,
          j.name,
          j.description,
          'FAILURE',
          { serverUrl },
          `could not talk to the server: ${o.fatal}`
        );
      }
      let judgement: Judgement;
      try {
        judgement = j.judge(o);
      } catch (error) {
        judgement = { status: 'FAILURE', details: {}, error: `the check itself failed: ${String(error)}` };
      }
      return makeCheck(j.id, j.section, j.name, j.description, judgement.status, judgement.details, judgement.error);
    });
  }

  private async observe(serverUrl: string): Promise<Observations> {
    const o: Observations = { serverUrl, tools: [], runs: [], probes: [], probeNotes: [], reads: [] };
    const maxParts = this.options.maxParts ?? 50;
    const sessions: Session[] = [];
    try {
      try {
        const { request, headers } = modernRequest(1, 'server/discover', {}, DECLARING);
        o.discover = await postJsonRpc(serverUrl, request, headers);
      } catch (error) {
        o.discoverError = String(error);
      }
      const a = await Session.open(serverUrl, 'a', true);
      sessions.push(a);
      const b = await Session.open(serverUrl, 'b', false);
      sessions.push(b);
      o.initializeCapabilities = a.client.getServerCapabilities() as JsonObject | undefined;
      o.tools = await a.listTools();
      const callable = o.tools.filter((t) => hintCarrierHasVerbatim(t) && requiredArguments(t).length === 0);
      for (const tool of callable) {
        const name = String(tool.name);
        const walkA = await walk(a, name, {}, maxParts);
        const walkB = await walk(b, name, {}, maxParts);
        const again = toPart(await a.call(name, {}));
        const structured = [...walkA.parts, ...walkB.parts, again].map(structuredOf);
        o.runs.push({ name, tool, a: walkA, b: walkB, again, paths: recordPaths(structured) });
      }
      await this.probeTokens(o, serverUrl, a, sessions);
      await this.readRecords(o, a);
      await this.compareModern(o, serverUrl);
    } catch (error) {
      o.fatal = error instanceof Error ? error.message : String(error);
    } finally {
      await Promise.all(sessions.map((s) => s.close()));
    }
    return o;
  }

  private async probeTokens(o: Observations, serverUrl: string, a: Session, sessions: Session[]): Promise<void> {
    const run = o.runs.find((r) => r.a.parts[0]?.continuation !== undefined && accepted(r.a.parts[0].outcome));
    if (!run) {
      o.probeNotes.push('no first part carried a continuation');
      return;
    }
    const continuation = run.a.parts[0].continuation as Continuation;
    o.probedToken = { tool: run.name, continuation };
    const args = (extra: JsonObject, token: string): JsonObject => ({ ...extra, [continuation.argument]: token });
    for (const variant of tamper(continuation.token)) {
      o.probes.push({ kind: 'tampered', what: variant.what, outcome: await a.call(run.name, args({}, variant.token)) });
    }
    const c = await Session.open(serverUrl, 'c', true);
    sessions.push(c);
    o.probes.push({
      kind: 'other-session',
      what: 'the token of session A presented in a new session',
      outcome: await c.call(run.name, args({}, continuation.token))
    });
    const extra = this.options.argumentVariants?.[run.name] ?? [];
    let tried = 0;
    for (const variant of argumentVariants(run.tool, continuation.argument, extra)) {
      const plain = await a.call(run.name, variant);
      if (!accepted(plain)) {
        o.probeNotes.push(
          `arguments ${brief(variant)} are not valid on their own (refused without a token), so not used`
        );
        continue;
      }
      tried++;
      o.probes.push({
        kind: 'other-arguments',
        what: `the token with arguments ${brief(variant)}`,
        outcome: await a.call(run.name, args(variant, continuation.token))
      });
      if (tried >= 2) break;
    }
    if (tried === 0)
      o.probeNotes.push('no other valid arguments were known for this tool: binding to arguments not tested');
    const others = o.tools.filter((t) => {
      if (t.name === run.name || requiredArguments(t).length > 0 || !(continuation.argument in properties(t)))
        return false;
      const annotations = isObject(t.annotations) ? t.annotations : {};
      return annotations.readOnlyHint === true || metaCarrier(t) !== undefined;
    });
    for (const other of others.slice(0, 1)) {
      o.probes.push({
        kind: 'other-tool',
        what: `the token presented to ${String(other.name)}`,
        outcome: await a.call(String(other.name), args({}, continuation.token))
      });
    }
    if (others.length === 0)
      o.probeNotes.push(
        `no other read-only tool takes ${JSON.stringify(continuation.argument)}: binding to the tool not tested`
      );
  }

  private async readRecords(o: Observations, a: Session): Promise<void> {
    const limit = this.options.maxReads ?? 40;
    const chosen = new Map<string, JsonObject>();
    for (const run of o.runs) {
      const perPart = run.a.parts.map((p) => recordsOf(p, run.paths).filter((r) => typeof r.record.uri === 'string'));
      // The first and last record of every part, then evenly spread others.
      for (const records of perPart) {
        for (const r of [records[0], records[records.length - 1]]) if (r) chosen.set(r.record.uri as string, r.record);
      }
      const all = perPart.flat();
      const step = Math.max(1, Math.floor(all.length / Math.max(1, limit)));
      for (let i = 0; i < all.length && chosen.size < limit * o.runs.length; i += step) {
        chosen.set(all[i].record.uri as string, all[i].record);
      }
    }
    for (const [uri, record] of [...chosen].slice(0, limit * Math.max(1, o.runs.length))) {
      try {
        const result = await a.request('resources/read', { uri });
        const contents = Array.isArray(result.contents) ? result.contents.filter(isObject) : [];
        if (contents.length === 0) {
          o.reads.push({ uri, ok: false, problem: 'resources/read returned no contents' });
          continue;
        }
        const match = contents.find((c) => c.uri === uri) ?? contents[0];
        let whole: boolean | undefined;
        if (typeof match.text === 'string') {
          try {
            whole = findInResource(JSON.parse(match.text), record);
          } catch {
            whole = undefined;
          }
        }
        o.reads.push({ uri, ok: true, whole });
      } catch (error) {
        o.reads.push({ uri, ok: false, problem: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  private async compareModern(o: Observations, serverUrl: string): Promise<void> {
    const result = isObject(o.discover?.message?.result) ? o.discover.message.result : undefined;
    const versions = Array.isArray(result?.supportedVersions) ? result.supportedVersions : [];
    const run = o.runs[0];
    if (!run || !versions.includes(MODERN_VERSION)) return;
    try {
      const call = async (id: number, capabilities: JsonObject): Promise<RawExchange> => {
        const { request, headers } = modernRequest(
          id,
          'tools/call',
          { name: run.name, arguments: {} },
          capabilities,
          run.name
        );
        return postJsonRpc(serverUrl, request, headers);
      };
      o.modern = { tool: run.name, declaring: await call(2, DECLARING), plain: await call(3, {}) };
    } catch (error) {
      o.modernError = String(error);
    }
  }
}
