/**
 * Rendering extension (io.modelcontextprotocol/rendering): the client side.
 *
 * The suite plays a server whose tools and results carry well-formed and malformed carriers. The client under
 * test calls every tool but `report_readings` with no arguments, reads each result with the tool's hints, then
 * calls `report_readings` with `{"readings": {<tool>: {"mode": ..., "partial": ...}}}`: `mode` is "verbatim",
 * "summarizable" or "unspecified", `partial` whether it shows the result as partial. The checks judge what it
 * reports against the specification's reading tables, and that no malformed value stopped it.
 */

import type { MockServer, ScenarioContext } from '../../mock-server';
import type { ConformanceCheck, Scenario, ScenarioUrls } from '../../types';
import { RENDERING_EXTENSION_ID, renderingRef } from '../server/rendering-wire';

interface Case {
  tool: unknown;
  result: unknown;
  isError?: boolean;
  expected: { mode: string; partial: boolean };
  /** The check the case belongs to. */
  check: string;
}

const NO_CARRIER = Symbol('no carrier');

const CASES: Record<string, Case> = {
  ledger: {
    tool: { verbatimHint: true },
    result: { mode: 'verbatim', complete: true },
    expected: { mode: 'verbatim', partial: false },
    check: 'sep-0000-rendering-client-effective-mode'
  },
  news: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', complete: true },
    expected: { mode: 'summarizable', partial: false },
    check: 'sep-0000-rendering-client-effective-mode'
  },
  hint_wins: {
    tool: { verbatimHint: true, summarizeOkHint: true },
    result: NO_CARRIER,
    expected: { mode: 'verbatim', partial: true },
    check: 'sep-0000-rendering-client-effective-mode'
  },
  hint_string_false: {
    tool: { verbatimHint: 'false' },
    result: NO_CARRIER,
    expected: { mode: 'verbatim', partial: true },
    check: 'sep-0000-rendering-client-reads-tables'
  },
  summarize_string_true: {
    tool: { summarizeOkHint: 'true' },
    result: NO_CARRIER,
    expected: { mode: 'verbatim', partial: true },
    check: 'sep-0000-rendering-client-reads-tables'
  },
  complete_string_true: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', complete: 'true' },
    expected: { mode: 'verbatim', partial: true },
    check: 'sep-0000-rendering-client-reads-tables'
  },
  complete_number: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', complete: 1 },
    expected: { mode: 'verbatim', partial: true },
    check: 'sep-0000-rendering-client-reads-tables'
  },
  mode_unregistered: {
    tool: { summarizeOkHint: true },
    result: { mode: 'tabular', complete: true },
    expected: { mode: 'verbatim', partial: false },
    check: 'sep-0000-rendering-client-reads-tables'
  },
  mode_not_a_string: {
    tool: { summarizeOkHint: true },
    result: { mode: 1, complete: true },
    expected: { mode: 'verbatim', partial: true },
    check: 'sep-0000-rendering-client-reads-tables'
  },
  carrier_not_an_object: {
    tool: 'verbatim',
    result: 'complete',
    expected: { mode: 'verbatim', partial: true },
    check: 'sep-0000-rendering-client-reads-tables'
  },
  complete_absent: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable' },
    expected: { mode: 'summarizable', partial: true },
    check: 'sep-0000-rendering-client-not-stated-is-partial'
  },
  hints_without_directive: {
    tool: { summarizeOkHint: true },
    result: NO_CARRIER,
    expected: { mode: 'summarizable', partial: true },
    check: 'sep-0000-rendering-client-not-stated-is-partial'
  },
  no_carrier: {
    tool: NO_CARRIER,
    result: NO_CARRIER,
    expected: { mode: 'unspecified', partial: false },
    check: 'sep-0000-rendering-client-not-stated-is-partial'
  },
  complete_misspelled: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', completed: true },
    expected: { mode: 'summarizable', partial: true },
    check: 'sep-0000-rendering-client-not-stated-is-partial'
  },
  unclean_summarizable: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', complete: true, is_complete: true },
    expected: { mode: 'summarizable', partial: false },
    check: 'sep-0000-rendering-client-unknown-member-ignored'
  },
  unclean_directive_without_mode: {
    tool: { summarizeOkHint: true },
    result: { completed: true },
    expected: { mode: 'summarizable', partial: true },
    check: 'sep-0000-rendering-client-unknown-member-ignored'
  },
  clean_mode_over_unclean_hint: {
    tool: { summarizeOkHint: true, verbatim: true },
    result: { mode: 'summarizable', complete: true },
    expected: { mode: 'summarizable', partial: false },
    check: 'sep-0000-rendering-client-effective-mode'
  },
  unclean_hint: {
    tool: { summarizeOkHint: true, verbatim: true },
    result: NO_CARRIER,
    expected: { mode: 'summarizable', partial: true },
    check: 'sep-0000-rendering-client-unknown-member-ignored'
  },
  verbatim_error: {
    tool: { verbatimHint: true },
    result: NO_CARRIER,
    isError: true,
    expected: { mode: 'verbatim', partial: true },
    check: 'sep-0000-rendering-client-effective-mode'
  }
};

const REPORT_TOOL = 'report_readings';

const CHECK_DESCRIPTIONS: Record<string, string> = {
  'sep-0000-rendering-client-effective-mode':
    'The client derives the effective mode from the directive and the hints, error results included',
  'sep-0000-rendering-client-reads-tables':
    'The client reads each wire value as the tables give, converting nothing',
  'sep-0000-rendering-client-unknown-member-ignored':
    'An unknown member is ignored: the reading is that of the carrier without it',
  'sep-0000-rendering-client-not-stated-is-partial':
    'A result whose completeness is not stated, a tool with hints and no directive included, is shown as partial; a result with neither carrier is not read'
};

function withCarrier(carrier: unknown): Record<string, unknown> {
  return carrier === NO_CARRIER
    ? {}
    : { _meta: { [RENDERING_EXTENSION_ID]: carrier } };
}

export class RenderingClientScenario implements Scenario {
  name = 'rendering-client';
  readonly source = { extensionId: RENDERING_EXTENSION_ID } as const;
  description = `Test a client's reading of the rendering extension (${RENDERING_EXTENSION_ID}).

**Client Implementation Requirements:** call every tool except \`${REPORT_TOOL}\` with no arguments, then call
\`${REPORT_TOOL}\` with \`{"readings": {<tool name>: {"mode": "verbatim" | "summarizable" | "unspecified",
"partial": <boolean>}}}\`, from the tool's hints and the result's directive as the specification reads them.`;
  private srv: MockServer | null = null;
  private stateless = false;

  async start(ctx: ScenarioContext): Promise<ScenarioUrls> {
    this.stateless = ctx.specVersion === '2026-07-28';
    this.srv = await ctx.createServer({
      'tools/list': () => ({
        tools: [
          ...Object.entries(CASES).map(([name, c]) => ({
            name,
            inputSchema: { type: 'object' },
            ...withCarrier(c.tool)
          })),
          {
            name: REPORT_TOOL,
            inputSchema: {
              type: 'object',
              properties: { readings: { type: 'object' } },
              required: ['readings']
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
        return {
          content: [{ type: 'text', text: `row 1 of ${name}` }],
          ...(c.isError ? { isError: true } : {}),
          ...withCarrier(c.result)
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
    const called = new Set(
      calls.map((r) => String((r.params as { name?: unknown })?.name))
    );
    const report = calls.find(
      (r) => (r.params as { name?: unknown })?.name === REPORT_TOOL
    );
    const readings = ((report?.params as { arguments?: { readings?: unknown } })
      ?.arguments?.readings ?? {}) as Record<
      string,
      { mode?: unknown; partial?: unknown } | undefined
    >;
    const timestamp = new Date().toISOString();
    const checks: ConformanceCheck[] = [];

    const uncalled = Object.keys(CASES).filter((name) => !called.has(name));
    const fatal = [
      ...uncalled.map((name) => `${name} was not called`),
      ...(report ? [] : [`${REPORT_TOOL} was not called`])
    ];
    checks.push({
      id: 'sep-0000-rendering-client-malformed-never-fatal',
      name: 'sep-0000-rendering-client-malformed-never-fatal',
      description:
        'No malformed value makes the client reject the response that carries it',
      status: fatal.length === 0 ? 'SUCCESS' : 'FAILURE',
      timestamp,
      specReferences: [renderingRef('4-reading')],
      errorMessage: fatal.length > 0 ? fatal.join('; ') : undefined,
      details: { called: [...called] }
    });

    for (const [id, description] of Object.entries(CHECK_DESCRIPTIONS)) {
      const problems: string[] = [];
      for (const [name, c] of Object.entries(CASES)) {
        if (c.check !== id) continue;
        const reading = readings[name];
        if (
          reading?.mode !== c.expected.mode ||
          reading?.partial !== c.expected.partial
        ) {
          problems.push(
            `${name}: read as ${JSON.stringify(reading ?? null)}, expected ${JSON.stringify(c.expected)}`
          );
        }
      }
      checks.push({
        id,
        name: id,
        description,
        status: problems.length === 0 ? 'SUCCESS' : 'FAILURE',
        timestamp,
        specReferences: [renderingRef('4-reading')],
        errorMessage: problems.length > 0 ? problems.join('; ') : undefined
      });
    }

    if (this.stateless) {
      // The 2026-07-28 client declares its capabilities on every request; the 2025 handshake is not recorded.
      const declaring = calls.filter((r) => {
        const meta = (r.params as { _meta?: Record<string, unknown> })?._meta;
        const caps = meta?.['io.modelcontextprotocol/clientCapabilities'] as
          | { extensions?: object }
          | undefined;
        return (
          caps?.extensions !== undefined &&
          RENDERING_EXTENSION_ID in caps.extensions
        );
      });
      checks.push({
        id: 'sep-0000-rendering-client-declares',
        name: 'sep-0000-rendering-client-declares',
        description: `The client declares ${RENDERING_EXTENSION_ID} in its capabilities`,
        status:
          calls.length > 0 && declaring.length === calls.length
            ? 'SUCCESS'
            : 'WARNING',
        timestamp,
        specReferences: [renderingRef('1-negotiation')],
        details: { calls: calls.length, declaring: declaring.length }
      });
    }
    return checks;
  }
}
