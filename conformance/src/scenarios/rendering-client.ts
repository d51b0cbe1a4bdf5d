/**
 * rendering-client: the suite plays an MCP server (2025-11-25, streamable HTTP) and judges a client's reading of
 * the rendering carriers, from what the client sends back.
 *
 * The server offers one paged tool, `ledger_report(company, cursor?)`, whose three parts each test a rule of
 * section 4 (and one of sections 5 and 6) by what the client does next:
 *
 * 1. `_meta` says complete: false and continue with cursor=part-2.a1, while the core form `_rendering` names
 *    another argument and token (page=core-only.z9): the `_meta` carrier decides, so the next call must carry
 *    cursor=part-2.a1 and nothing else new.
 * 2. `_meta` has a malformed mode (42) and guidance (7), an unknown member, no `complete`, and a well-formed
 *    continuation (cursor=part-3.b2): the malformed members read as verbatim and absent, the continuation still
 *    applies and makes the result incomplete, so the client continues.
 * 3. `_meta` has complete: "false" (a string) and a numeric token; the core form `_rendering` holds a well-formed
 *    continuation (page=core-fallback.d4), and `structuredContent._rendering` another (from-the-copy.c3). Read
 *    fail-safe, the result is incomplete with nothing to follow: the malformed continuation in `_meta` settles
 *    the member (the core form is not consulted behind it), nothing is coerced, and the copy is not a carrier.
 *    The client must not call again.
 *
 * tools/list itself carries malformed hints in both carriers (never fatal: the client must still call tools):
 * `ledger_report` is verbatim through a well-formed `_meta` verbatimHint, next to a malformed summarizeOkHint (1)
 * there and a malformed core-form verbatimHint ({}); `ledger_notes`, listed first, has only a malformed
 * summarizeOkHint ("yes" in both carriers), which reads as false: no hint at all.
 */

import {
  CLIENT_CAPABILITIES_KEY,
  EXTENSION_ID,
  brief,
  deepEqual,
  isObject,
  makeCheck,
  type JsonObject,
  type SpecSection
} from '../extension.ts';
import { METHOD_NOT_FOUND, RpcError, startJsonRpcServer, type RunningServer } from '../http-server.ts';
import type { CheckStatus, ConformanceCheck, Scenario, ScenarioUrls, SpecVersion } from '../types.ts';

export const TOOL = 'ledger_report';
export const DECOY = 'ledger_notes';
export const ARGUMENTS = { company: 'acme' };

const PART_2 = 'part-2.a1';
const PART_3 = 'part-3.b2';
const CORE_ONLY = 'core-only.z9';
const COPY_ONLY = 'from-the-copy.c3';
const CORE_FALLBACK = 'core-fallback.d4';
const NUMERIC_TOKEN = 12345;
/** Every token value the server sends anywhere; a client may send back only these, and only the right one. */
const ISSUED: unknown[] = [PART_2, PART_3, CORE_ONLY, COPY_ONLY, CORE_FALLBACK, NUMERIC_TOKEN];
const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

const ROWS = [
  { id: 'L1', label: 'Capital social', amount: 50000 },
  { id: 'L2', label: 'Réserve légale', amount: 5000 },
  { id: 'L3', label: 'Emprunts', amount: 120000 },
  { id: 'L4', label: 'Fournisseurs', amount: 43000 },
  { id: 'L5', label: 'Total passif', amount: 218000 }
];

function text(lines: string): JsonObject[] {
  return [{ type: 'text', text: lines }];
}

function tools(): JsonObject[] {
  return [
    {
      name: DECOY,
      description: 'Free-form notes about a company ledger.',
      inputSchema: { type: 'object', properties: { company: { type: 'string' } } },
      // Only a malformed summarizeOkHint, in both carriers: read without coercion it is false, so this tool has
      // no hint that makes it verbatim (nor summarizable).
      annotations: { readOnlyHint: true, summarizeOkHint: 'yes' },
      _meta: { [EXTENSION_ID]: { summarizeOkHint: 'yes' } }
    },
    {
      name: TOOL,
      title: 'Ledger report',
      description:
        'Every line of a company ledger, in order. Paged: when a result is incomplete, call again with the same ' +
        'arguments plus the continuation the result names.',
      inputSchema: {
        type: 'object',
        properties: {
          company: { type: 'string' },
          cursor: { type: 'string', description: 'Continuation token of the previous part.' }
        },
        required: ['company']
      },
      // Verbatim through the _meta carrier; its summarizeOkHint (the number 1) reads as false and the core form's
      // verbatimHint (an object) as true.
      annotations: { readOnlyHint: true, verbatimHint: {} },
      _meta: { [EXTENSION_ID]: { verbatimHint: true, summarizeOkHint: 1 } }
    }
  ];
}

type PartNumber = 1 | 2 | 3;

function part(number: PartNumber, company: string): JsonObject {
  const header = `Ledger of ${company}, part ${number} of 3`;
  if (number === 1) {
    const rows = ROWS.slice(0, 2);
    return {
      content: text(`${header}\n${rows.map((r) => `${r.label}: ${r.amount}`).join('\n')}`),
      structuredContent: { rows },
      _meta: {
        [EXTENSION_ID]: { mode: 'verbatim', complete: false, continuation: { argument: 'cursor', token: PART_2 } }
      },
      _rendering: { continuation: { argument: 'page', token: CORE_ONLY } }
    };
  }
  if (number === 2) {
    const rows = ROWS.slice(2, 4);
    return {
      content: text(`${header}\n${rows.map((r) => `${r.label}: ${r.amount}`).join('\n')}`),
      structuredContent: { rows },
      _meta: {
        [EXTENSION_ID]: {
          mode: 42,
          guidance: 7,
          'x-unknown': {},
          continuation: { argument: 'cursor', token: PART_3 }
        }
      }
    };
  }
  const rows = ROWS.slice(4);
  return {
    content: text(`${header}\n${rows.map((r) => `${r.label}: ${r.amount}`).join('\n')}`),
    structuredContent: {
      _rendering: { complete: false, continuation: { argument: 'cursor', token: COPY_ONLY } },
      rows
    },
    _meta: {
      [EXTENSION_ID]: {
        mode: 'verbatim',
        complete: 'false',
        continuation: { argument: 'cursor', token: NUMERIC_TOKEN }
      }
    },
    _rendering: { continuation: { argument: 'page', token: CORE_FALLBACK } }
  };
}

interface ToolCall {
  name: string;
  arguments: JsonObject;
  /** Which part the server answered with; 0 for a refusal or another tool. */
  answered: PartNumber | 0;
}

interface Judgement {
  status: CheckStatus;
  details: Record<string, unknown>;
  error?: string;
}

const pass = (details: Record<string, unknown>): Judgement => ({ status: 'SUCCESS', details });
const fail = (error: string, details: Record<string, unknown>): Judgement => ({ status: 'FAILURE', details, error });

export class RenderingClientScenario implements Scenario {
  name = 'rendering-client';
  specVersions: SpecVersion[] = ['extension'];
  description = `Judges how a client reads the rendering extension's carriers (sep/rendering.mdx, sections 1, 4, 5, 6).

**Client Implementation Requirements:**

Connect to the server URL given as the last argument, list the tools, call \`${TOOL}\` (the tool the server marks
verbatim) with the arguments of MCP_CONFORMANCE_CONTEXT (\`${JSON.stringify(ARGUMENTS)}\`), and follow each
continuation the result carries, read by the rules of section 4, until the result is complete.

The client should declare \`capabilities.extensions["${EXTENSION_ID}"]\`. It must not be stopped by malformed
values, must follow the \`_meta\` carrier over the core form, must read malformed members as the value that shows
more without coercing them, must not follow a continuation found only in \`structuredContent._rendering\`, and must send every
token back exactly as received.`;

  private server: RunningServer | undefined;
  private calls: ToolCall[] = [];

  async start(): Promise<ScenarioUrls> {
    this.calls = [];
    this.server = await startJsonRpcServer((method, params) => this.handle(method, params));
    return { serverUrl: this.server.url, context: { arguments: ARGUMENTS, tool: TOOL } };
  }

  async stop(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }

  private handle(method: string, params: JsonObject): unknown {
    switch (method) {
      case 'initialize': {
        const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
        return {
          protocolVersion: SUPPORTED_VERSIONS.includes(asked) ? asked : SUPPORTED_VERSIONS[0],
          capabilities: { tools: {} },
          serverInfo: { name: 'rendering-client-scenario', version: '1.0.0' }
        };
      }
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: tools() };
      case 'tools/call':
        return this.call(params);
      default:
        // server/discover included: this server speaks only the initialize-era protocol versions.
        throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  private call(params: JsonObject): JsonObject {
    const name = String(params.name);
    const args = isObject(params.arguments) ? params.arguments : {};
    const record = (answered: PartNumber | 0): void => {
      this.calls.push({ name, arguments: args, answered });
    };
    if (name === DECOY) {
      record(0);
      return { content: text('No notes for this company.') };
    }
    if (name !== TOOL) {
      record(0);
      return { content: text(`Unknown tool ${JSON.stringify(name)}.`), isError: true };
    }
    if (typeof args.company !== 'string') {
      record(0);
      return { content: text('The argument "company" is required (a string).'), isError: true };
    }
    const token = args.cursor;
    let number: PartNumber | 0 = 0;
    if (token === undefined && args.page === undefined) number = 1;
    else if (token === PART_2) number = 2;
    else if (token === PART_3) number = 3;
    record(number);
    if (number === 0) {
      return {
        content: text('Unknown continuation token: call the tool again without it to start from the first part.'),
        isError: true
      };
    }
    return part(number, args.company);
  }

  getChecks(): ConformanceCheck[] {
    const received = this.server?.received ?? [];
    const calls = this.calls;
    const ledger = calls.filter((c) => c.name === TOOL);
    const firstPart = ledger.findIndex((c) => c.answered === 1);
    const original = firstPart >= 0 ? ledger[firstPart].arguments : undefined;
    const after = (index: number): ToolCall | undefined => (index >= 0 ? ledger[index + 1] : undefined);
    const indexOf = (answered: PartNumber): number => ledger.findIndex((c) => c.answered === answered);
    const second = after(firstPart);
    const part2 = indexOf(2);
    const third = after(part2);
    const part3 = indexOf(3);
    const afterThird = part3 >= 0 ? ledger.slice(part3 + 1) : [];
    const listed = received.some((m) => m.message.method === 'tools/list');
    const callLog = calls.map((c) => ({ tool: c.name, arguments: c.arguments, answeredWith: c.answered || 'error' }));
    const base = { toolCalls: callLog };
    const expected = (token: string): JsonObject | undefined =>
      original === undefined ? undefined : { ...original, cursor: token };
    const noFirst = fail(`the client never called ${TOOL} with ${JSON.stringify(ARGUMENTS)} and no token`, base);

    const checks: ConformanceCheck[] = [];
    const add = (id: string, section: SpecSection, name: string, description: string, j: Judgement): void => {
      checks.push(makeCheck(id, section, name, description, j.status, j.details, j.error));
    };

    // ---------------------------------------------------------------------------------- declares the extension
    {
      const initialize = received.find((m) => m.message.method === 'initialize');
      const initParams = isObject(initialize?.message.params) ? initialize.message.params : undefined;
      const initCapabilities = initParams?.capabilities;
      const envelopes = received
        .map((m) => (isObject(m.message.params) && isObject(m.message.params._meta) ? m.message.params._meta : {}))
        .map((meta) => meta[CLIENT_CAPABILITIES_KEY])
        .filter((value) => value !== undefined);
      const declares = (capabilities: unknown): boolean =>
        isObject(capabilities) && isObject(capabilities.extensions) && isObject(capabilities.extensions[EXTENSION_ID]);
      const ok = declares(initCapabilities) || envelopes.some(declares);
      const details = {
        initializeCapabilities: initCapabilities ?? null,
        perRequestCapabilities: envelopes.slice(0, 3)
      };
      add(
        'sep-0000-client-declares-extension',
        '1-capability',
        'ClientDeclaresExtension',
        `The client declares capabilities.extensions["${EXTENSION_ID}"]`,
        ok
          ? pass(details)
          : fail(
              initialize === undefined
                ? 'the client sent no initialize request and no per-request capabilities declaring the extension'
                : `neither initialize nor any per-request envelope declares extensions[${JSON.stringify(EXTENSION_ID)}]`,
              details
            )
      );
    }

    // ------------------------------------------------------------------------------------------ meta decides
    add(
      'sep-0000-client-meta-decides',
      '4-reading',
      'ClientMetaDecides',
      'After a part whose _meta carrier and core form name different continuations, the client follows _meta',
      original === undefined
        ? noFirst
        : second === undefined
          ? fail('the client did not continue after part 1 (complete: false in _meta)', base)
          : 'page' in second.arguments || second.arguments.cursor === CORE_ONLY
            ? fail(`the client followed the core form (page=${CORE_ONLY}) instead of _meta`, { ...base, second })
            : deepEqual(second.arguments, expected(PART_2))
              ? pass({ ...base, followed: second.arguments })
              : fail(`after part 1 the client sent ${brief(second.arguments)}, not ${brief(expected(PART_2))}`, base)
    );

    // --------------------------------------------------------------------------------- malformed member safe
    {
      const continued = third !== undefined && deepEqual(third.arguments, expected(PART_3));
      const stopped = part3 >= 0 && afterThird.length === 0;
      const details = {
        ...base,
        part2Meta: (part(2, 'x')._meta as JsonObject)[EXTENSION_ID],
        part3Meta: (part(3, 'x')._meta as JsonObject)[EXTENSION_ID],
        continuedAfterPart2: continued,
        stoppedAfterPart3: stopped
      };
      add(
        'sep-0000-client-malformed-member-safe',
        '4-reading',
        'ClientMalformedMemberAbsent',
        'Malformed members read as the value that shows more while the other members still apply: the client ' +
          'continues after part 2 (malformed mode and guidance, valid continuation) and stops after part 3 (malformed ' +
          'complete and token in _meta, which the core form does not override)',
        original === undefined
          ? noFirst
          : !continued
            ? fail(
                part2 < 0
                  ? 'the client never reached part 2'
                  : `after part 2 the client ${third === undefined ? 'stopped' : `sent ${brief(third.arguments)}`} ` +
                      `instead of continuing with cursor=${PART_3}: malformed members voided the valid continuation`,
                details
              )
            : !stopped
              ? fail(`after part 3 the client called again: ${brief(afterThird[0]?.arguments)}`, details)
              : pass(details)
      );
    }

    // ------------------------------------------------------------------------------------------ no coercion
    {
      const sentValues = ledger.flatMap((c) => Object.values(c.arguments));
      const coerced = sentValues.filter((v) => v === NUMERIC_TOKEN || v === String(NUMERIC_TOKEN));
      const details = {
        ...base,
        part3Meta: (part(3, 'x')._meta as JsonObject)[EXTENSION_ID],
        note:
          'complete: "false" coerced to false has no effect on the wire by itself (there is no valid continuation ' +
          'to follow); a coerced token (12345 or "12345") sent back, or any call after part 3, is the evidence'
      };
      add(
        'sep-0000-client-no-coercion',
        '4-reading',
        'ClientNoCoercion',
        'The client does not convert malformed values: the numeric token of part 3 is not a token',
        part3 < 0
          ? fail('the client never reached part 3, so it was not shown the values that must not be coerced', details)
          : coerced.length > 0
            ? fail(`the client sent back the numeric token as ${brief(coerced[0])}`, details)
            : afterThird.length > 0
              ? fail(`after part 3 the client called again: ${brief(afterThird[0].arguments)}`, details)
              : pass(details)
      );
    }

    // ---------------------------------------------------------------------------------------- never fatal
    {
      const calledAfterList = listed && calls.length > 0;
      const usedPart2 = third !== undefined && deepEqual(third.arguments, expected(PART_3));
      const details = {
        ...base,
        toolsList:
          'malformed hints in both carriers: ledger_notes _meta and annotations summarizeOkHint "yes"; ' +
          'ledger_report _meta summarizeOkHint 1 and annotations verbatimHint {}',
        calledAToolAfterToolsList: calledAfterList,
        usedTheContinuationOfPart2: usedPart2
      };
      add(
        'sep-0000-client-malformed-never-fatal',
        '4-reading',
        'ClientMalformedNeverFatal',
        'Malformed values in tools/list and in a tools/call result do not make the client reject the response',
        !listed
          ? fail('the client never listed the tools', details)
          : !calledAfterList
            ? fail('the client listed the tools (malformed hints) and then called none', details)
            : !usedPart2
              ? fail(
                  part2 < 0
                    ? 'the client never reached part 2'
                    : 'the client did not act on part 2 (malformed mode and guidance): it did not continue with its valid continuation',
                  details
                )
              : pass(details)
      );
    }

    // ------------------------------------------------------------------------- incomplete with continuation
    {
      const afterPart1 = second !== undefined && deepEqual(second.arguments, expected(PART_2));
      const afterPart2 = third !== undefined && deepEqual(third.arguments, expected(PART_3));
      const details = { ...base, continuedAfterPart1: afterPart1, continuedAfterPart2: afterPart2 };
      add(
        'sep-0000-client-incomplete-with-continuation',
        '4-reading',
        'ClientIncompleteWithContinuation',
        'The client treats a result as incomplete when complete is false (part 1) or when it carries a continuation ' +
          'without complete (part 2), and continues',
        original === undefined
          ? noFirst
          : !afterPart1
            ? fail('the client did not continue after part 1 (complete: false)', details)
            : !afterPart2
              ? fail('the client did not continue after part 2 (a continuation, no complete member)', details)
              : pass(details)
      );
    }

    // ---------------------------------------------------------------------------------- follows continuation
    {
      const followUps = firstPart >= 0 ? ledger.slice(firstPart + 1) : [];
      const wrong: string[] = [];
      if (second === undefined) wrong.push('no call followed part 1');
      else if (!deepEqual(second.arguments, expected(PART_2)))
        wrong.push(`after part 1: ${brief(second.arguments)} instead of ${brief(expected(PART_2))}`);
      if (part2 >= 0) {
        if (third === undefined) wrong.push('no call followed part 2');
        else if (!deepEqual(third.arguments, expected(PART_3)))
          wrong.push(`after part 2: ${brief(third.arguments)} instead of ${brief(expected(PART_3))}`);
      }
      const elsewhere = calls.filter(
        (c) => c.name !== TOOL && Object.values(c.arguments).some((v) => ISSUED.includes(v))
      );
      if (elsewhere.length > 0) wrong.push(`a token was sent to another tool: ${elsewhere[0].name}`);
      const details = { ...base, followUps: followUps.map((c) => c.arguments) };
      add(
        'sep-0000-client-follows-continuation',
        '5-bounded-results',
        'ClientFollowsContinuation',
        'Each continuation call names the same tool with the same arguments plus only the continuation argument, ' +
          'set to the exact token',
        original === undefined ? noFirst : wrong.length > 0 ? fail(wrong.join('; '), details) : pass(details)
      );
    }

    // ------------------------------------------------------------------------------------------ token opaque
    {
      const sent = ledger
        .flatMap((c) => ['cursor', 'page'].filter((k) => k in c.arguments).map((k) => c.arguments[k]))
        .filter((v) => v !== undefined);
      const foreign = sent.filter((v) => !ISSUED.some((issued) => issued === v));
      const details = { ...base, tokensSentBack: sent, tokensIssued: ISSUED };
      add(
        'sep-0000-client-token-opaque',
        '5-bounded-results',
        'ClientTokenOpaque',
        'Every token the client sends back is byte for byte one the server issued',
        sent.length === 0
          ? fail('the client sent no token back, so it never showed that it keeps tokens intact', details)
          : foreign.length > 0
            ? fail(`the client sent ${brief(foreign[0])}, which the server never issued as a token`, details)
            : pass(details)
      );
    }

    // ------------------------------------------------------------------------------- ignores structured copy
    {
      const fromCopy = ledger.filter((c) => Object.values(c.arguments).includes(COPY_ONLY));
      const details = {
        ...base,
        part3StructuredCopy: (part(3, 'x').structuredContent as JsonObject)._rendering
      };
      add(
        'sep-0000-client-ignores-structured-copy',
        '6-reaching-the-model',
        'ClientIgnoresStructuredCopy',
        'The client does not follow a continuation found only in structuredContent._rendering',
        part3 < 0
          ? fail(
              'the client never reached part 3, whose only well-formed continuation is in the structured copy',
              details
            )
          : fromCopy.length > 0
            ? fail(`the client followed the structured copy: ${brief(fromCopy[0].arguments)}`, details)
            : afterThird.length > 0
              ? fail(`after part 3 the client called again: ${brief(afterThird[0].arguments)}`, details)
              : pass(details)
      );
    }

    return checks;
  }
}
