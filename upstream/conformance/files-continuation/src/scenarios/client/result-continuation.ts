/**
 * Result continuation extension (mcp-rendering/result-continuation): the client side.
 *
 * The suite plays a server whose tools return results in parts, with well-formed, unusable and malformed
 * continuation carriers. The client under test calls every tool but `report_parts` with no arguments, follows
 * each usable continuation to the end, then calls `report_parts` with `{"results": {<tool>: {"mode": ...,
 * "partial": ..., "text": [...]}}}`: the combined effective mode, whether it shows the combination as partial, and
 * the text of every text block of every part, in order.
 */

import { randomBytes } from 'crypto';
import type { MockServer, ScenarioContext } from '../../mock-server';
import type { ConformanceCheck, Scenario, ScenarioUrls } from '../../types';
import { RENDERING_EXTENSION_ID, renderingRef } from '../server/rendering-wire';
import {
  CONTINUATION_EXTENSION_ID,
  continuationRef
} from '../server/result-continuation-wire';

const REPORT_TOOL = 'report_parts';
const ARGUMENT = 'cursor';

export interface Part {
  text: string[];
  /** The continuation carrier; the string `TOKEN` stands for the tool's token of this run. */
  continuation?: unknown;
  rendering?: unknown;
  isError?: boolean;
}

export interface Case {
  /** The tool carrier; undefined for none. */
  tool?: unknown;
  /** The tool's `inputSchema`; undefined for the one that declares the continuation argument. */
  inputSchema?: Record<string, unknown>;
  parts: Part[];
  /** Whether the client must follow part 1's carrier. */
  follow: boolean;
  expected: { partial: boolean; mode?: string };
  check: string;
}

const TOKEN = Symbol('token');
const usable = { argument: ARGUMENT, token: TOKEN };

export const CASES: Record<string, Case> = {
  ledger_parts: {
    tool: { argument: ARGUMENT },
    parts: [
      { text: ['ledger rows 1-2'], continuation: usable },
      // States `complete: true`: without a directive, a client that also reads rendering reads the whole as partial.
      { text: ['ledger rows 3-4'], rendering: { complete: true } }
    ],
    follow: true,
    expected: { partial: false },
    // Its follow-up is judged by follows-exactly, as every followed case's is; its reading by the table.
    check: 'continuation-client-reads-table'
  },
  restart_needed: {
    tool: { argument: ARGUMENT },
    parts: [
      { text: ['screening hits 1-2'], continuation: usable },
      { text: ['the token was refused: start again'], isError: true }
    ],
    follow: true,
    expected: { partial: true },
    check: 'continuation-client-combination-complete'
  },
  carrier_not_an_object: {
    tool: { argument: ARGUMENT },
    parts: [{ text: ['rows 1-2', 'notes'], continuation: 'cursor=abc' }],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-malformed-never-fatal'
  },
  // An unknown member (a later revision's, say) is ignored: the carrier is still followed.
  carrier_unknown_member: {
    tool: { argument: ARGUMENT, since: '2027' },
    parts: [
      { text: ['rows 1-2'], continuation: { ...usable, more: true } },
      { text: ['rows 3-4'], rendering: { complete: true } }
    ],
    follow: true,
    expected: { partial: false },
    check: 'continuation-client-unknown-member-ignored'
  },
  argument_not_the_tools: {
    tool: { argument: ARGUMENT },
    parts: [
      { text: ['rows 1-2'], continuation: { argument: 'page', token: TOKEN } }
    ],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-reads-table'
  },
  // The tool carrier is well-formed, but the inputSchema contradicts it: the declaration is malformed.
  argument_not_in_schema: {
    tool: { argument: ARGUMENT },
    inputSchema: { type: 'object', properties: { page: { type: 'string' } } },
    parts: [{ text: ['rows 1-2'], continuation: usable }],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-reads-table'
  },
  argument_not_a_string: {
    tool: { argument: ARGUMENT },
    inputSchema: {
      type: 'object',
      properties: { [ARGUMENT]: { type: 'integer' } }
    },
    parts: [{ text: ['rows 1-2'], continuation: usable }],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-reads-table'
  },
  argument_required: {
    tool: { argument: ARGUMENT },
    inputSchema: {
      type: 'object',
      properties: { [ARGUMENT]: { type: 'string' } },
      required: [ARGUMENT]
    },
    parts: [{ text: ['rows 1-2'], continuation: usable }],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-reads-table'
  },
  // A tool carrier present but not clean and usable: the client cannot tell a later part from the first, so no
  // result of the tool reads complete, whatever its directive says.
  declaration_misspelled: {
    tool: { argumnt: ARGUMENT },
    parts: [{ text: ['rows 1-2'], rendering: { complete: true } }],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-reads-table'
  },
  declaration_mistyped: {
    tool: { argument: 5 },
    parts: [{ text: ['rows 1-2'], rendering: { complete: true } }],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-reads-table'
  },
  no_tool_carrier: {
    parts: [{ text: ['rows 1-2'], continuation: usable }],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-reads-table'
  },
  token_malformed: {
    tool: { argument: ARGUMENT },
    parts: [
      {
        text: ['rows 1-2'],
        continuation: { argument: ARGUMENT, token: 'not a token!' }
      }
    ],
    follow: false,
    expected: { partial: true },
    check: 'continuation-client-reads-table'
  },
  statement_parts: {
    tool: { argument: ARGUMENT },
    parts: [
      {
        text: ['statement lines 1-2'],
        continuation: usable,
        rendering: { mode: 'verbatim', complete: false }
      },
      { text: ['statement lines 3-4'], rendering: { complete: true } }
    ],
    follow: true,
    expected: { partial: false, mode: 'verbatim' },
    check: 'continuation-client-combined-mode'
  }
};

const DESCRIPTIONS: Record<string, [string, { id: string; url: string }]> = {
  'continuation-client-reads-table': [
    'The client reads the result carrier as the table gives: an unusable carrier is not followed, and its part is partial',
    continuationRef('4-following-a-continuation')
  ],
  'continuation-client-unknown-member-ignored': [
    'An unknown member of either carrier changes nothing: the continuation is followed and the whole read complete',
    continuationRef('4-following-a-continuation')
  ],
  'continuation-client-malformed-never-fatal': [
    'A malformed carrier does not make the client reject or drop any of the result that carries it',
    continuationRef('4-following-a-continuation')
  ],
  'continuation-client-combination-complete': [
    'A combination of parts whose continuation was not served is not presented as complete',
    continuationRef('4-following-a-continuation')
  ],
  'continuation-client-combined-mode': [
    'The directives of the parts combine: the mode of the first part stands, and the whole is complete once the last part is fetched',
    renderingRef('4-reading')
  ]
};

function withMeta(part: Part, token: string): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const resolve = (value: unknown): unknown =>
    value === TOKEN
      ? token
      : value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(
            Object.entries(value).map(([k, v]) => [k, resolve(v)])
          )
        : value;
  if (part.continuation !== undefined)
    meta[CONTINUATION_EXTENSION_ID] = resolve(part.continuation);
  if (part.rendering !== undefined)
    meta[RENDERING_EXTENSION_ID] = part.rendering;
  return Object.keys(meta).length > 0 ? { _meta: meta } : {};
}

interface Reported {
  mode?: unknown;
  partial?: unknown;
  text?: unknown;
}

export class ResultContinuationClientScenario implements Scenario {
  name = 'result-continuation-client';
  readonly source = { extensionId: CONTINUATION_EXTENSION_ID } as const;
  description = `Test a client's reading and following of result continuations (${CONTINUATION_EXTENSION_ID}, SEP-0000).

**Client Implementation Requirements:** call every tool except \`${REPORT_TOOL}\` with no arguments and follow each
usable continuation (the same tool, the original arguments plus the continuation argument set to the token) until
a part has none or the server refuses the token; then call \`${REPORT_TOOL}\` with \`{"results": {<tool name>:
{"mode": "verbatim" | "summarizable" | "unspecified", "partial": <boolean>, "text": [<the text of every text block
of every part, in order>]}}}\`.`;
  private srv: MockServer | null = null;
  /** A fresh token per tool and run, so that a client cannot construct one. */
  private tokens = new Map<string, string>();

  async start(ctx: ScenarioContext): Promise<ScenarioUrls> {
    for (const name of Object.keys(CASES))
      this.tokens.set(
        name,
        `v1.${randomBytes(18).toString('base64url')}.${randomBytes(12).toString('base64url')}`
      );
    this.srv = await ctx.createServer({
      'tools/list': () => ({
        tools: [
          ...Object.entries(CASES).map(([name, c]) => ({
            name,
            inputSchema: c.inputSchema ?? {
              type: 'object',
              properties: { [ARGUMENT]: { type: 'string' } }
            },
            ...(c.tool === undefined
              ? {}
              : { _meta: { [CONTINUATION_EXTENSION_ID]: c.tool } })
          })),
          {
            name: REPORT_TOOL,
            inputSchema: {
              type: 'object',
              properties: { results: { type: 'object' } },
              required: ['results']
            }
          }
        ]
      }),
      'tools/call': (params) => {
        const name = String(params.name);
        if (name === REPORT_TOOL)
          return { content: [{ type: 'text', text: 'recorded' }] };
        const c = CASES[name];
        if (!c) throw new Error(`Unknown tool: ${name}`);
        const token = this.tokens.get(name) ?? '';
        const args = (params.arguments ?? {}) as Record<string, unknown>;
        const index = args[ARGUMENT] === token && c.parts.length > 1 ? 1 : 0;
        if (args[ARGUMENT] !== undefined && args[ARGUMENT] !== token)
          return {
            content: [
              { type: 'text', text: 'unknown continuation token: start again' }
            ],
            isError: true
          };
        const part = c.parts[index];
        return {
          content: part.text.map((text) => ({ type: 'text', text })),
          ...(part.isError ? { isError: true } : {}),
          ...withMeta(part, token)
        };
      }
    });
    return { serverUrl: this.srv.url };
  }

  async stop(): Promise<void> {
    await this.srv?.close();
    this.srv = null;
  }

  getChecks(): ConformanceCheck[] {
    const calls = (this.srv?.recorded ?? []).filter(
      (r) => r.method === 'tools/call'
    );
    const params = (r: (typeof calls)[number]) =>
      (r.params ?? {}) as { name?: unknown; arguments?: unknown };
    const report = calls.find((r) => params(r).name === REPORT_TOOL);
    const results = ((
      params(report ?? ({} as (typeof calls)[number])).arguments as
        | { results?: unknown }
        | undefined
    )?.results ?? {}) as Record<string, Reported | undefined>;
    const timestamp = new Date().toISOString();
    const byTool = (name: string) =>
      calls
        .filter((r) => params(r).name === name)
        .map((r) => (params(r).arguments ?? {}) as Record<string, unknown>);
    const fetchedText = (c: Case) =>
      c.parts.slice(0, c.follow ? c.parts.length : 1).flatMap((p) => p.text);
    const problems = new Map<string, string[]>(
      ['continuation-client-follows-exactly', ...Object.keys(DESCRIPTIONS)].map(
        (id) => [id, []]
      )
    );
    const add = (id: string, message: string) =>
      problems.get(id)?.push(message);

    if (!report) {
      for (const id of problems.keys())
        add(id, `${REPORT_TOOL} was not called`);
    }
    for (const [name, c] of Object.entries(CASES)) {
      const made = byTool(name);
      const token = this.tokens.get(name);
      const reported = results[name];
      if (made.length === 0) {
        add(c.check, `${name} was not called`);
        continue;
      }
      const followUps = made.slice(1);
      if (c.follow && followUps.length === 0) {
        // Not following a usable carrier is a misreading of it, judged by the case's own check.
        add(c.check, `${name}: the usable continuation was not followed`);
      } else if (c.follow) {
        // follows-exactly judges every follow-up of a case the client must follow.
        const exact =
          followUps.length === 1 &&
          JSON.stringify(followUps[0]) ===
            JSON.stringify({ ...made[0], [ARGUMENT]: token });
        if (!exact)
          add(
            'continuation-client-follows-exactly',
            `${name}: follow-up calls ${JSON.stringify(followUps)}, expected one with ${ARGUMENT} set to the token`
          );
      } else if (followUps.length > 0) {
        add(
          c.check,
          `${name}: followed an unusable carrier (${JSON.stringify(followUps)})`
        );
      }
      if (reported?.partial !== c.expected.partial)
        add(
          c.check,
          `${name}: reported partial ${JSON.stringify(reported?.partial ?? null)}, expected ${c.expected.partial}`
        );
      if (c.expected.mode !== undefined && reported?.mode !== c.expected.mode)
        add(
          c.check,
          `${name}: reported mode ${JSON.stringify(reported?.mode ?? null)}, expected ${c.expected.mode}`
        );
      const text = fetchedText(c);
      if (
        c.check === 'continuation-client-malformed-never-fatal' &&
        JSON.stringify(reported?.text) !== JSON.stringify(text)
      )
        add(
          c.check,
          `${name}: reported text ${JSON.stringify(reported?.text ?? null)}, expected ${JSON.stringify(text)}`
        );
    }

    const checks: ConformanceCheck[] = [];
    for (const [id, found] of problems) {
      const [description, ref] = DESCRIPTIONS[id] ?? [
        'The client follows a continuation only by the call it names, with the exact token',
        continuationRef('4-following-a-continuation')
      ];
      checks.push({
        id,
        name: id,
        description,
        status: found.length === 0 ? 'SUCCESS' : 'FAILURE',
        timestamp,
        specReferences: [ref],
        errorMessage: found.length > 0 ? found.join('; ') : undefined,
        details: { calls: calls.length }
      });
    }
    return checks;
  }
}
