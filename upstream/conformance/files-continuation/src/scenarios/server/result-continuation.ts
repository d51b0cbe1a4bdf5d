/**
 * Result continuation extension (mcp-rendering/result-continuation): the server side.
 *
 * The suite plays the client. It lists the server's tools, and for each tool whose carrier declares a
 * continuation argument and that takes no required argument, walks the whole result part by part, from a client
 * that declares the extension and from one that does not; then presents altered and rebound tokens, which the
 * server must refuse. Under 2026-07-28 it also fetches a continuation on a new connection.
 */

import { untestableCheck } from '../untestable';
import type { ClientScenario, ConformanceCheck } from '../../types';
import type { Connection, RunContext } from '../../connection';
import {
  CONTINUATION_EXTENSION_ID,
  type PartRecord,
  continuationOf,
  continuationProblems,
  continuationRef,
  cutRecords,
  recordKey,
  recordsOf,
  wellFormedContinuation,
  withoutTokens
} from './result-continuation-wire';
import { recordingFetch, repeatedMemberProblems } from './repeated-members';

interface ListedTool {
  name: string;
  inputSchema?: {
    required?: unknown;
    properties?: Record<string, Record<string, unknown>>;
  };
  _meta?: Record<string, unknown>;
}

interface CalledResult {
  content?: { type?: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A call's outcome: its result, or the JSON-RPC error that refused it. */
type Outcome = { result: CalledResult } | { error: string };

/** The most parts a walk follows: a server that never ends its result fails carrier-iff-more. */
const MAX_PARTS = 100;

/**
 * The longest the scenario waits for a token to expire: a token whose stated expiry is further away is not
 * presented after it (the expired-token check is untestable), as the scenario cannot move the server's clock.
 */
export const EXPIRY_WAIT_BOUND_MS = 20_000;
/** How long after a stated expiry the token is presented: clocks apart, and expiries kept in whole seconds. */
const EXPIRY_MARGIN_MS = 2_000;

/**
 * What a check found: the problems it saw (none is a success), or why the server under test gave it nothing to
 * observe (then the check is untestable: failed with that reason, at the severity of its keyword, never passed).
 */
type Findings = string[] | { unobserved: string };

/** Findings that are problems when there are any, else the reason nothing could be observed. */
function unlessObserved(
  problems: string[],
  observed: boolean,
  reason: string
): Findings {
  return problems.length > 0 || observed ? problems : { unobserved: reason };
}

function check(
  section: string,
  id: string,
  description: string,
  findings: Findings,
  details: Record<string, unknown>,
  failure: 'FAILURE' | 'WARNING' = 'FAILURE'
): ConformanceCheck {
  if (!Array.isArray(findings))
    return untestable(
      section,
      id,
      description,
      findings.unobserved,
      details,
      failure
    );
  const problems = findings;
  return {
    id,
    name: id,
    description,
    status: problems.length === 0 ? 'SUCCESS' : failure,
    timestamp: new Date().toISOString(),
    specReferences: [continuationRef(section)],
    errorMessage: problems.length > 0 ? problems.join('; ') : undefined,
    details
  };
}

/** The server under test gave nothing this check can observe (issue #248: a failure, not a skip). */
function untestable(
  section: string,
  id: string,
  description: string,
  reason: string,
  details: Record<string, unknown> = {},
  severity: 'FAILURE' | 'WARNING' = 'FAILURE'
): ConformanceCheck {
  const failed = untestableCheck(
    id,
    id,
    description,
    reason,
    [continuationRef(section)],
    severity
  );
  return { ...failed, details: { ...details, ...failed.details } };
}

/**
 * The JSON types a property's schema names: its `type` (a string or an array), or else the `type` of every branch
 * of its `anyOf`, as generators write an optional argument; empty when a branch names none.
 */
function declaredTypes(schema: unknown, nested = false): string[] {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return [];
  const { type, anyOf } = schema as { type?: unknown; anyOf?: unknown };
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.map(String);
  if (
    type !== undefined ||
    nested ||
    !Array.isArray(anyOf) ||
    anyOf.length === 0
  )
    return [];
  const branches = anyOf.map((branch) => declaredTypes(branch, true));
  return branches.some((types) => types.length === 0) ? [] : branches.flat();
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function call(
  connection: Connection,
  name: string,
  args: Record<string, unknown>
): Promise<Outcome> {
  try {
    return {
      result: await connection.request<CalledResult>('tools/call', {
        name,
        arguments: args
      })
    };
  } catch (error) {
    return { error: errorText(error) };
  }
}

function refusal(outcome: Outcome): string | undefined {
  if ('error' in outcome) return `refused: ${outcome.error}`;
  if (outcome.result.isError === true) return 'a tool error';
  return undefined;
}

/** Whether a refused call says so as the specification asks: a tool error with a text block. */
function saysStartAgain(outcome: Outcome): boolean {
  return (
    'result' in outcome &&
    outcome.result.isError === true &&
    (outcome.result.content ?? []).some(
      (block) => block.type === 'text' && (block.text ?? '').length > 0
    )
  );
}

/** One character of `token` at `at` replaced by another of the token alphabet (never a separator). */
export function alterToken(token: string, at: number): string {
  let index = Math.max(0, Math.min(token.length - 1, at));
  while (index < token.length && !/[A-Za-z0-9]/.test(token[index])) index++;
  if (index >= token.length) return `${token}A`;
  const char = token[index];
  const replacement = char === 'A' ? 'B' : /[0-9]/.test(char) ? 'A' : '0';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

interface Walk {
  parts: CalledResult[];
  /** Why the walk stopped before a part without a carrier, when it did. */
  stopped?: string;
  tokens: string[];
}

async function walk(
  connection: Connection,
  tool: string,
  args: Record<string, unknown>
): Promise<Walk> {
  const parts: CalledResult[] = [];
  const tokens: string[] = [];
  let next = args;
  for (let index = 0; index < MAX_PARTS; index++) {
    const outcome = await call(connection, tool, next);
    const refused = refusal(outcome);
    if (refused || !('result' in outcome))
      return { parts, tokens, stopped: `part ${index + 1}: ${refused}` };
    parts.push(outcome.result);
    const carrier = continuationOf(outcome.result);
    if (carrier === undefined || carrier === null) return { parts, tokens };
    const continuation = wellFormedContinuation(outcome.result);
    if (!continuation)
      return {
        parts,
        tokens,
        stopped: `part ${index + 1}: a malformed carrier`
      };
    tokens.push(continuation.token);
    next = { ...args, [continuation.argument]: continuation.token };
  }
  return { parts, tokens, stopped: `more than ${MAX_PARTS} parts` };
}

/** The JSON Schema types a property admits, `anyOf` / `oneOf` members included. */
function schemaTypes(schema: Record<string, unknown>): unknown[] {
  const own = Array.isArray(schema.type) ? schema.type : [schema.type];
  const members = [schema.anyOf, schema.oneOf].flatMap((list) =>
    Array.isArray(list) ? (list as Record<string, unknown>[]) : []
  );
  return [...own, ...members.flatMap((member) => schemaTypes(member))];
}

/**
 * Another value for one optional argument of the tool, preferring one that the server accepts when no token is
 * sent (so that a refusal with the token is the token's); undefined when the tool has no argument to vary.
 */
async function alteredArguments(
  connection: Connection,
  tool: ListedTool,
  argument: string
): Promise<
  { args: Record<string, unknown>; acceptedAlone: boolean } | undefined
> {
  const candidates: Record<string, unknown>[] = [];
  for (const [name, schema] of Object.entries(
    tool.inputSchema?.properties ?? {}
  )) {
    if (name === argument) continue;
    const values: unknown[] = [];
    if (Array.isArray(schema.enum))
      values.push(...schema.enum.filter((v) => v !== schema.default));
    if (Array.isArray(schema.examples))
      values.push(...schema.examples.filter((v) => v !== schema.default));
    const types = schemaTypes(schema);
    if (types.includes('integer') || types.includes('number'))
      values.push(typeof schema.default === 'number' ? schema.default + 1 : 1);
    if (types.includes('boolean'))
      values.push(typeof schema.default === 'boolean' ? !schema.default : true);
    if (types.includes('string')) values.push('conformance-other-value');
    for (const value of values) candidates.push({ [name]: value });
  }
  for (const args of candidates) {
    const outcome = await call(connection, tool.name, args);
    if (!refusal(outcome)) return { args, acceptedAlone: true };
  }
  return candidates.length > 0
    ? { args: candidates[0], acceptedAlone: false }
    : undefined;
}

function allRecords(parts: CalledResult[]): PartRecord[][] {
  return parts.map((part) => recordsOf(part) ?? []);
}

const EXPIRED_ID = 'continuation-server-rejects-expired-token';
const EXPIRED_DESCRIPTION =
  'A token presented after its stated expiry is refused';

/**
 * rejects-expired-token: a new part 1 of `tool`, whose token is presented before its stated expiry (it must be
 * accepted, or a refusal after it proves nothing) and again once that expiry has passed (it must be refused).
 * Skipped when the server states no expiry, or one further away than the scenario waits.
 */
async function expiredTokenCheck(
  connection: Connection,
  tool: string
): Promise<ConformanceCheck> {
  const section = '5-tokens-and-the-authorization-context';
  const first = await call(connection, tool, {});
  const continuation =
    'result' in first ? wellFormedContinuation(first.result) : undefined;
  if (refusal(first) || !continuation)
    return check(
      section,
      EXPIRED_ID,
      EXPIRED_DESCRIPTION,
      [`part 1, called again: ${refusal(first) ?? 'no well-formed carrier'}`],
      { tool }
    );
  const { argument, token, expiresAt } = continuation;
  if (expiresAt === undefined)
    return untestable(
      section,
      EXPIRED_ID,
      EXPIRED_DESCRIPTION,
      `${tool} states no expiresAt: the scenario cannot know when its token expires`
    );
  const expiry = Date.parse(expiresAt);
  const away = expiry - Date.now();
  if (away > EXPIRY_WAIT_BOUND_MS)
    return untestable(
      section,
      EXPIRED_ID,
      EXPIRED_DESCRIPTION,
      `${tool} states expiresAt ${expiresAt}, ${Math.round(away / 1000)} s away, more than the ${EXPIRY_WAIT_BOUND_MS / 1000} s the scenario waits for a token to expire (serve tokens that live at most that long to observe the rejection)`
    );
  const problems: string[] = [];
  let acceptedBefore: boolean | null = null;
  if (away > EXPIRY_MARGIN_MS) {
    const before = await call(connection, tool, { [argument]: token });
    acceptedBefore = !refusal(before);
    if (refusal(before))
      problems.push(
        `the token was refused before its expiry too (${refusal(before)})`
      );
  }
  const wait = expiry + EXPIRY_MARGIN_MS - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const after = await call(connection, tool, { [argument]: token });
  if (!refusal(after))
    problems.push(
      `the token was accepted ${Math.round((Date.now() - expiry) / 1000)} s after its expiresAt ${expiresAt}`
    );
  return check(section, EXPIRED_ID, EXPIRED_DESCRIPTION, problems, {
    tool,
    expiresAt,
    acceptedBefore,
    refusedAfter: refusal(after) ?? null
  });
}

const CONTEXT_ID = 'continuation-server-token-bound-to-context';
const CONTEXT_DESCRIPTION =
  'A token issued anonymously is refused with a principal, and one issued to a principal is refused anonymously';

/** `base` with `Authorization: Bearer <credential>` on every request it sends. */
export function bearerFetch(
  base: typeof fetch,
  credential: string
): typeof fetch {
  return (input, init) => {
    const headers = new Headers(
      init?.headers ?? (input instanceof Request ? input.headers : undefined)
    );
    headers.set('Authorization', `Bearer ${credential}`);
    return base(input, { ...init, headers });
  };
}

/**
 * token-bound-to-context: part 1 of `tool` fetched anonymously (on `anonymous`) and with the credential of
 * `--bearer-token` (on a connection of its own, every request of which carries it: the 2025-11-25 connection
 * takes no per-request header, and a session belongs to the credential that opened it); each token is presented
 * in the other context (it must be refused), then in its own (it must be accepted, or a refusal proves nothing).
 */
async function contextBoundCheck(
  ctx: RunContext,
  anonymous: Connection,
  tool: string,
  base: typeof fetch,
  refusals: { label: string; outcome: Outcome }[]
): Promise<ConformanceCheck> {
  const section = '5-tokens-and-the-authorization-context';
  const credential = ctx.bearerToken ?? '';
  if (credential === '')
    return untestable(
      section,
      CONTEXT_ID,
      CONTEXT_DESCRIPTION,
      'no credential to call with: pass --bearer-token with a credential the server under test accepts as a principal (it must still serve callers without one)'
    );
  const how =
    'part 1 fetched anonymously and on a second connection whose every request carries Authorization: Bearer (the credential of ' +
    '--bearer-token); each token presented in the other context, then in its own';
  let principal: Connection;
  try {
    principal = await ctx.connect({
      capabilities: { extensions: { [CONTINUATION_EXTENSION_ID]: {} } },
      fetch: bearerFetch(base, credential)
    });
  } catch (error) {
    return check(
      section,
      CONTEXT_ID,
      CONTEXT_DESCRIPTION,
      [
        `the connection with the credential of --bearer-token was refused: ${errorText(error)}`
      ],
      { tool, how }
    );
  }
  try {
    const problems: string[] = [];
    const issued: {
      context: string;
      on: Connection;
      token?: string;
      argument?: string;
    }[] = [
      { context: 'anonymously', on: anonymous },
      { context: 'to the principal', on: principal }
    ];
    for (const entry of issued) {
      const first = await call(entry.on, tool, {});
      const continuation =
        'result' in first ? wellFormedContinuation(first.result) : undefined;
      if (refusal(first) || !continuation)
        problems.push(
          `part 1 ${entry.context === 'anonymously' ? 'called anonymously' : 'called with the credential'}: ${refusal(first) ?? 'no well-formed carrier'}`
        );
      else {
        entry.token = continuation.token;
        entry.argument = continuation.argument;
      }
    }
    const [anon, auth] = issued;
    const outcomes: Record<string, string> = {};
    if (anon.token && auth.token && anon.argument && auth.argument) {
      // Crossed first: a server that spends a token on its first presentation must not pass by refusing the second.
      const crossed = [
        {
          label: 'the token issued anonymously, presented with the credential',
          on: principal,
          entry: anon
        },
        {
          label: 'the token issued to the principal, presented anonymously',
          on: anonymous,
          entry: auth
        }
      ];
      for (const { label, on, entry } of crossed) {
        const outcome = await call(on, tool, {
          [entry.argument!]: entry.token
        });
        refusals.push({ label, outcome });
        outcomes[label] = refusal(outcome) ?? 'accepted';
        if (!refusal(outcome)) problems.push(`${label} was accepted`);
      }
      for (const entry of [anon, auth]) {
        const outcome = await call(entry.on, tool, {
          [entry.argument!]: entry.token
        });
        const label = `the token issued ${entry.context}, presented in its own context`;
        outcomes[label] = refusal(outcome) ?? 'accepted';
        if (refusal(outcome))
          problems.push(`${label} was refused too (${refusal(outcome)})`);
      }
    }
    return check(section, CONTEXT_ID, CONTEXT_DESCRIPTION, problems, {
      tool,
      how,
      specVersion: ctx.specVersion,
      outcomes
    });
  } finally {
    await principal.close().catch(() => undefined);
  }
}

export class ResultContinuationServerScenario implements ClientScenario {
  name = 'result-continuation-server';
  readonly source = { extensionId: CONTINUATION_EXTENSION_ID } as const;
  description = `Test a server's result continuation extension (${CONTINUATION_EXTENSION_ID}, SEP-0000).

**Server Implementation Requirements:**

- Declare \`${CONTINUATION_EXTENSION_ID}\` under \`capabilities.extensions\`.
- Declare the continuation argument in \`Tool._meta["${CONTINUATION_EXTENSION_ID}"]\` and in \`inputSchema\` as an
  optional string; send \`CallToolResult._meta["${CONTINUATION_EXTENSION_ID}"]\` on every part but the last.
- Cut between records; serve the next part for an accepted token; refuse an altered token, and a token presented
  with other arguments or to another tool, with a tool error; under 2026-07-28, accept a continuation on a new
  connection.
- Refuse a token issued in the anonymous context when it comes with a principal, and the reverse (observed only
  when \`--bearer-token\` gives a credential the server accepts as a principal beside anonymous callers;
  otherwise the check is untestable).
- Refuse a token once its \`expiresAt\` has passed (observed only when the stated expiry is at most
  ${EXPIRY_WAIT_BOUND_MS / 1000} s away: the scenario waits for it; otherwise the check is untestable).
- Should never give a member name twice in one object of a \`Tool\` or \`CallToolResult\` (judged on the response
  bytes, before any parser keeps one of the values).

**Required server fixtures:** a tool with a continuation carrier and no required argument whose result, called
with no arguments, comes in at least two parts, its records the objects of the innermost arrays of
\`structuredContent\` (a record's string \`id\`, when it has one, identifies it).`;

  async run(ctx: RunContext): Promise<ConformanceCheck[]> {
    const checks: ConformanceCheck[] = [];
    let declaring: Connection;
    let plain: Connection;
    // Every response body as received, for the members a parsed message no longer shows twice.
    const tap = recordingFetch();
    try {
      declaring = await ctx.connect({
        capabilities: { extensions: { [CONTINUATION_EXTENSION_ID]: {} } },
        fetch: tap.fetch
      });
      plain = await ctx.connect({ capabilities: {}, fetch: tap.fetch });
    } catch (error) {
      return [
        check(
          '1-negotiation',
          'result-continuation-server-bootstrap',
          'The client sessions start',
          [errorText(error)],
          {}
        )
      ];
    }
    try {
      const discovered = (await declaring.discover()) as {
        capabilities?: { extensions?: unknown };
      };
      const extensions = discovered.capabilities?.extensions;
      const declared =
        extensions !== null &&
        typeof extensions === 'object' &&
        Object.prototype.hasOwnProperty.call(
          extensions,
          CONTINUATION_EXTENSION_ID
        );
      checks.push(
        check(
          '1-negotiation',
          'continuation-server-declares',
          `The server declares ${CONTINUATION_EXTENSION_ID} under capabilities.extensions`,
          declared
            ? []
            : [
                `capabilities.extensions does not hold ${CONTINUATION_EXTENSION_ID} (${ctx.specVersion})`
              ],
          { specVersion: ctx.specVersion, extensions: extensions ?? null }
        )
      );

      const tools =
        (await declaring.request<{ tools?: ListedTool[] }>('tools/list', {}))
          .tools ?? [];
      const declaringTools = tools.filter(
        (tool) =>
          continuationOf(tool) !== undefined && continuationOf(tool) !== null
      );
      const callable = declaringTools.filter((tool) => {
        const required = tool.inputSchema?.required;
        return !Array.isArray(required) || required.length === 0;
      });
      const typed = declaringTools.flatMap((tool) =>
        continuationProblems(continuationOf(tool), 'tool').map(
          (problem) => `${tool.name}: ${problem}`
        )
      );

      const walks = new Map<string, { declared: Walk; plain: Walk }>();
      for (const tool of callable) {
        walks.set(tool.name, {
          declared: await walk(declaring, tool.name, {}),
          plain: await walk(plain, tool.name, {})
        });
      }
      for (const [name, { declared, plain: undeclared }] of walks) {
        for (const part of [...declared.parts, ...undeclared.parts]) {
          const carrier = continuationOf(part);
          if (carrier !== undefined && carrier !== null)
            typed.push(
              ...continuationProblems(carrier, 'result').map(
                (problem) => `${name}: ${problem}`
              )
            );
        }
      }
      checks.push(
        check(
          '2-carriers-and-types',
          'continuation-server-carriers-typed',
          'Every carrier value conforms to the types of the specification',
          unlessObserved(
            typed,
            declaringTools.length > 0,
            `no tool carries ${CONTINUATION_EXTENSION_ID} in its _meta`
          ),
          {
            toolCarriers: declaringTools.map((tool) => tool.name),
            walked: [...walks.keys()]
          }
        )
      );

      // The tool the remaining checks judge: the first whose walk came in at least two parts.
      const pagedName = [...walks.entries()].find(
        ([, w]) => w.declared.parts.length >= 2
      )?.[0];
      const paged = tools.find((tool) => tool.name === pagedName);
      const noPaged: Findings = {
        unobserved: `no tool with a continuation carrier and no required argument returned a result in two parts (walked: ${[...walks.keys()].join(', ') || 'none'})`
      };

      // argument-declared: every tool that returned a continuation declares its argument, on the tool and in its
      // inputSchema, as an optional string.
      const undeclared: string[] = [];
      let returnedAny = false;
      for (const [name, w] of walks) {
        const returned = [...w.declared.parts, ...w.plain.parts]
          .map((part) => continuationOf(part) as { argument?: unknown })
          .filter((carrier) => carrier !== undefined && carrier !== null);
        if (returned.length === 0) continue;
        returnedAny = true;
        const tool = tools.find((t) => t.name === name);
        const declaredArgument = (
          continuationOf(tool) as { argument?: unknown } | undefined
        )?.argument;
        if (typeof declaredArgument !== 'string') {
          undeclared.push(`${name}: the tool carrier names no argument`);
          continue;
        }
        const property = tool?.inputSchema?.properties?.[declaredArgument];
        const types = declaredTypes(property);
        if (
          !types.includes('string') ||
          types.some((t) => t !== 'string' && t !== 'null')
        )
          undeclared.push(
            `${name}: inputSchema.properties.${declaredArgument} is not a string property`
          );
        const required = tool?.inputSchema?.required;
        if (Array.isArray(required) && required.includes(declaredArgument))
          undeclared.push(`${name}: ${declaredArgument} is required`);
        for (const carrier of returned) {
          if (carrier.argument !== declaredArgument)
            undeclared.push(
              `${name}: a part names ${JSON.stringify(carrier.argument)}, not the declared ${declaredArgument}`
            );
        }
      }
      checks.push(
        check(
          '2-carriers-and-types',
          'continuation-server-argument-declared',
          'A tool that returns continuations declares its argument in its carrier and as an optional string',
          unlessObserved(
            undeclared,
            returnedAny,
            'no walked tool returned a continuation'
          ),
          { walked: [...walks.keys()] }
        )
      );

      // expiry-bounded: every continuation states its expiresAt, at most 24 hours after the token was issued, which
      // was before now.
      const latest = Date.now() + 24 * 3600 * 1000 + 60 * 1000; // a minute for the clocks of two machines
      const late: string[] = [];
      let stated = 0;
      let continuations = 0;
      for (const [name, w] of walks) {
        for (const part of [...w.declared.parts, ...w.plain.parts]) {
          const carrier = continuationOf(part);
          if (carrier === undefined || carrier === null) continue;
          continuations += 1;
          const expiresAt = (carrier as { expiresAt?: unknown }).expiresAt;
          if (typeof expiresAt !== 'string') {
            late.push(
              `${name}: a continuation states no expiresAt (${JSON.stringify(expiresAt ?? null)})`
            );
            continue;
          }
          stated += 1;
          if (Date.parse(expiresAt) > latest)
            late.push(
              `${name}: expiresAt ${expiresAt} is more than 24 hours away`
            );
        }
      }
      checks.push(
        check(
          '5-tokens-and-the-authorization-context',
          'continuation-server-expiry-bounded',
          'Every continuation states its expiry, at most 24 hours after the token was issued',
          unlessObserved(
            late,
            continuations > 0,
            'no walked tool returned a continuation'
          ),
          { continuations, stated }
        )
      );

      const pagedWalk = pagedName ? walks.get(pagedName) : undefined;
      const parts = pagedWalk?.declared.parts ?? [];
      const partRecords = allRecords(parts);
      const anyRecords = partRecords.some((records) => records.length > 0);

      // carrier-iff-more: every part but the last has a carrier, the last has none, and a part that has one is
      // followed by a part that holds records.
      const iff: string[] = [];
      if (pagedWalk) {
        if (pagedWalk.declared.stopped)
          iff.push(`the walk stopped: ${pagedWalk.declared.stopped}`);
        parts.forEach((part, index) => {
          const carrier = continuationOf(part);
          const last = index === parts.length - 1;
          const has = carrier !== undefined && carrier !== null;
          // Records are observed only when some part holds one: a result of text blocks alone has none to count.
          if (has && !last && anyRecords && partRecords[index + 1].length === 0)
            iff.push(
              `part ${index + 1} has a carrier, but part ${index + 2} holds no record`
            );
          if (!has && !last) iff.push(`part ${index + 1} has no carrier`);
        });
      }
      checks.push(
        check(
          '3-producing-parts',
          'continuation-server-carrier-iff-more',
          'The result carrier is on a part if and only if records remain after it',
          pagedWalk ? iff : noPaged,
          { tool: pagedName ?? null, parts: parts.length }
        )
      );

      const cut = cutRecords(partRecords);
      const fragments = partRecords.flatMap((records, index) =>
        anyRecords && records.length === 0 && index < parts.length - 1
          ? [`part ${index + 1} holds no record`]
          : []
      );
      const judged = partRecords.every((records) => records.length > 0);
      checks.push(
        check(
          '3-producing-parts',
          'continuation-server-cuts-between-records',
          'Each part holds whole records: no record is split between parts',
          pagedWalk
            ? unlessObserved(
                [...cut, ...fragments],
                judged,
                `the parts of ${pagedName} have no records to judge (objects in the innermost arrays of structuredContent)`
              )
            : noPaged,
          { tool: pagedName ?? null, records: partRecords.map((r) => r.length) }
        )
      );

      // parts-partition: the records of the parts, once each and in order; equal to those of an independent walk.
      const partition: string[] = [];
      if (pagedWalk) {
        const seen = new Map<string, number>();
        partRecords.forEach((records, index) => {
          for (const record of records) {
            if (record.id === undefined) continue;
            const key = recordKey(record);
            const before = seen.get(key);
            if (before !== undefined && before !== index)
              partition.push(
                `record ${JSON.stringify(record.id)} is in parts ${before + 1} and ${index + 1}`
              );
            seen.set(key, index);
          }
        });
        const sequence = (records: PartRecord[][]) =>
          records
            .flat()
            .map((record) => recordKey(record))
            .filter((key, index, all) => all.indexOf(key) === index);
        const mine = sequence(partRecords);
        const theirs = sequence(allRecords(pagedWalk.plain.parts));
        if (pagedWalk.plain.stopped)
          partition.push(`the second walk stopped: ${pagedWalk.plain.stopped}`);
        else if (JSON.stringify(mine) !== JSON.stringify(theirs))
          partition.push(
            `two walks of the same call give different records (${mine.length} and ${theirs.length})`
          );
      }
      checks.push(
        check(
          '3-producing-parts',
          'continuation-server-parts-partition',
          'The parts hold every record of the result exactly once, in order',
          pagedWalk
            ? unlessObserved(
                partition,
                partRecords.flat().length > 0,
                `the parts of ${pagedName} have no records to judge (objects in the innermost arrays of structuredContent)`
              )
            : noPaged,
          { tool: pagedName ?? null, records: partRecords.flat().length }
        )
      );

      // result-independent-of-declaration: the first parts with and without the declaration.
      const independent: string[] = [];
      if (pagedWalk) {
        const [mine] = pagedWalk.declared.parts;
        const [theirs] = pagedWalk.plain.parts;
        const tokens = [
          ...pagedWalk.declared.tokens,
          ...pagedWalk.plain.tokens
        ];
        if (!theirs)
          independent.push(
            `refused without the declaration: ${pagedWalk.plain.stopped}`
          );
        else
          for (const member of [
            'content',
            'structuredContent',
            '_meta'
          ] as const)
            if (
              withoutTokens(mine[member], tokens) !==
              withoutTokens(theirs[member], tokens)
            )
              independent.push(
                `${member} of the first part differs without the declaration`
              );
      }
      checks.push(
        check(
          '1-negotiation',
          'continuation-server-result-independent-of-declaration',
          'The first part does not depend on whether the client declared the extension',
          pagedWalk ? independent : noPaged,
          { tool: pagedName ?? null }
        )
      );

      const firstCarrier = parts[0]
        ? wellFormedContinuation(parts[0])
        : undefined;
      // serves-next-part: the token of part 1 brings part 2, which follows part 1.
      const serves: string[] = [];
      if (paged && firstCarrier) {
        const second = await call(declaring, paged.name, {
          [firstCarrier.argument]: firstCarrier.token
        });
        const refused = refusal(second);
        if (refused || !('result' in second))
          serves.push(`the call with the token of part 1: ${refused}`);
        else {
          const firstKeys = new Set(partRecords[0].map(recordKey));
          const next = recordsOf(second.result) ?? [];
          // Without records in any part (text blocks alone), only that the token is served can be observed.
          if (anyRecords && next.length === 0)
            serves.push('part 2 holds no record');
          if (
            next.some((r) => r.id !== undefined && firstKeys.has(recordKey(r)))
          )
            serves.push('part 2 repeats a record of part 1');
          if (
            partRecords[1] &&
            JSON.stringify(next.map(recordKey)) !==
              JSON.stringify(partRecords[1].map(recordKey))
          )
            serves.push('part 2 differs from the part the walk received');
        }
      }
      const noFirstCarrier: Findings = paged
        ? {
            unobserved: `part 1 of ${paged.name} has no well-formed carrier to follow`
          }
        : noPaged;
      checks.push(
        check(
          '3-producing-parts',
          'continuation-server-serves-next-part',
          'A call with an accepted token returns the part that follows',
          paged && firstCarrier ? serves : noFirstCarrier,
          { tool: pagedName ?? null }
        )
      );

      // Refused tokens: altered in its first half and in its last characters; rebound to other arguments and to
      // another tool that declares a continuation argument.
      const refusals: { label: string; outcome: Outcome }[] = [];
      const tampered: string[] = [];
      const bound: string[] = [];
      const boundDetails: Record<string, unknown> = {};
      if (paged && firstCarrier) {
        const { argument, token } = firstCarrier;
        for (const [label, at] of [
          ['one character of its first half', Math.floor(token.length / 3)],
          ['one character of its end', token.length - 3]
        ] as const) {
          const outcome = await call(declaring, paged.name, {
            [argument]: alterToken(token, at)
          });
          refusals.push({ label: `a token with ${label} changed`, outcome });
          if (!refusal(outcome))
            tampered.push(`a token with ${label} changed was accepted`);
        }
        const altered = await alteredArguments(declaring, paged, argument);
        boundDetails.otherArguments = altered?.args ?? null;
        boundDetails.otherArgumentsAcceptedWithoutToken =
          altered?.acceptedAlone ?? null;
        if (altered) {
          const rebound = await call(declaring, paged.name, {
            ...altered.args,
            [argument]: token
          });
          refusals.push({
            label: 'the token with other arguments',
            outcome: rebound
          });
          if (!refusal(rebound))
            bound.push(
              `the token was accepted with other arguments ${JSON.stringify(altered.args)}`
            );
        }
        const other = declaringTools.find((tool) => tool.name !== paged.name);
        boundDetails.otherTool = other?.name ?? null;
        const otherArgument = (
          continuationOf(other) as { argument?: unknown } | undefined
        )?.argument;
        if (other && typeof otherArgument === 'string') {
          const moved = await call(declaring, other.name, {
            [otherArgument]: token
          });
          refusals.push({
            label: `the token sent to ${other.name}`,
            outcome: moved
          });
          if (!refusal(moved))
            bound.push(`the token was accepted by another tool, ${other.name}`);
        }
        if (!altered && !(other && typeof otherArgument === 'string'))
          bound.push(
            `${paged.name} has no optional argument to vary and no other tool declares a continuation argument: the binding cannot be observed`
          );
        // The unaltered continuation must be accepted, or a refusal above proves nothing.
        const unaltered = await call(declaring, paged.name, {
          [argument]: token
        });
        const refused = refusal(unaltered);
        if (refused) {
          tampered.push(`the unaltered token was refused too (${refused})`);
          bound.push(`the unaltered token was refused too (${refused})`);
        }
      }
      checks.push(
        check(
          '5-tokens-and-the-authorization-context',
          'continuation-server-rejects-tampered-token',
          'A token with one character changed is refused',
          paged && firstCarrier ? tampered : noFirstCarrier,
          { tool: pagedName ?? null }
        )
      );
      checks.push(
        check(
          '5-tokens-and-the-authorization-context',
          'continuation-server-token-bound',
          'A token presented with other arguments, or to another tool, is refused',
          paged && firstCarrier ? bound : noFirstCarrier,
          { tool: pagedName ?? null, ...boundDetails }
        )
      );
      // token-bound-to-context: with a credential from the environment, tokens moved between the anonymous context
      // and a principal (its refusals join those the tool-error SHOULD judges).
      checks.push(
        paged
          ? await contextBoundCheck(
              ctx,
              declaring,
              paged.name,
              tap.fetch,
              refusals
            )
          : check(
              '5-tokens-and-the-authorization-context',
              CONTEXT_ID,
              CONTEXT_DESCRIPTION,
              noPaged,
              { tool: null }
            )
      );
      const refused = refusals.filter(({ outcome }) => refusal(outcome));
      checks.push(
        check(
          '5-tokens-and-the-authorization-context',
          'continuation-server-rejected-token-error',
          'A refused token produces a tool error that says so in a text block',
          refused.length === 0
            ? { unobserved: 'no token was refused' }
            : refused
                .filter(({ outcome }) => !saysStartAgain(outcome))
                .map(({ label, outcome }) =>
                  'error' in outcome
                    ? `${label}: a JSON-RPC error, not a tool error`
                    : `${label}: a tool error without a text block`
                ),
          { refused: refused.map(({ label }) => label) },
          'WARNING'
        )
      );

      if (ctx.specVersion === '2026-07-28') {
        // No session and no authentication: part 1 and part 2 on two new connections, each its own request.
        const stateless: string[] = [];
        if (paged) {
          const first = await ctx.connect({
            capabilities: {},
            fetch: tap.fetch
          });
          const second = await ctx.connect({
            capabilities: {},
            fetch: tap.fetch
          });
          try {
            const one = await call(first, paged.name, {});
            const continuation =
              'result' in one ? wellFormedContinuation(one.result) : undefined;
            if (refusal(one) || !continuation)
              stateless.push(
                `part 1 on a new connection: ${refusal(one) ?? 'no carrier'}`
              );
            else {
              const two = await call(second, paged.name, {
                [continuation.argument]: continuation.token
              });
              const refused = refusal(two);
              if (refused || !('result' in two))
                stateless.push(`part 2 on another new connection: ${refused}`);
              else if (
                JSON.stringify((recordsOf(two.result) ?? []).map(recordKey)) !==
                JSON.stringify((partRecords[1] ?? []).map(recordKey))
              )
                stateless.push(
                  'part 2 on another new connection is not the part that follows'
                );
            }
          } finally {
            await Promise.allSettled([first.close(), second.close()]);
          }
        }
        checks.push(
          check(
            '5-tokens-and-the-authorization-context',
            'continuation-server-stateless-continuation',
            'A continuation sent on a new connection, without a session, is served',
            paged ? stateless : noPaged,
            { tool: pagedName ?? null, specVersion: ctx.specVersion }
          )
        );
      }

      // rejects-expired-token: last, as it may wait for a token to expire.
      checks.push(
        paged
          ? await expiredTokenCheck(declaring, paged.name)
          : check(
              '5-tokens-and-the-authorization-context',
              EXPIRED_ID,
              EXPIRED_DESCRIPTION,
              noPaged,
              { tool: null }
            )
      );

      // no-repeated-members: the bytes of every tools/list and tools/call response above, scanned for a member
      // name given twice in one object of a Tool or CallToolResult.
      const repeated = repeatedMemberProblems(tap.exchanges);
      checks.push(
        check(
          '2-carriers-and-types',
          'continuation-server-no-repeated-members',
          'No Tool or CallToolResult gives a member name twice in one object',
          repeated.scanned === 0
            ? {
                unobserved:
                  'no tools/list or tools/call response body was recorded'
              }
            : repeated.problems,
          { responsesScanned: repeated.scanned },
          'WARNING'
        )
      );
    } catch (error) {
      checks.push(
        check(
          '1-negotiation',
          'result-continuation-server-run',
          'The scenario runs to its end',
          [errorText(error)],
          {}
        )
      );
    } finally {
      await Promise.allSettled([declaring.close(), plain.close()]);
    }
    return checks;
  }
}
