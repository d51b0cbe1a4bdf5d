/**
 * Rendering extension (io.modelcontextprotocol/rendering): the client side.
 *
 * The suite plays a server whose tools and results carry well-formed and malformed carriers. The client under test
 * calls every tool but `report_readings` with no arguments, reads each result with its tool's hints, then calls
 * `report_readings` with what it read. The checks judge the report against the specification's reading tables, and
 * that no malformed value stopped the client.
 */

import type { MockServer, ScenarioContext } from '../../mock-server';
import type { ConformanceCheck, Scenario, ScenarioUrls } from '../../types';
import { RENDERING_EXTENSION_ID, renderingRef } from '../server/rendering-wire';

export interface Reading {
  mode: 'verbatim' | 'summarizable' | 'unspecified';
  partial: boolean;
}

interface Case {
  tool?: unknown;
  result?: unknown;
  isError?: boolean;
  expected: Reading;
  /** The unknown member names the client should report as ignored. */
  unknown?: string[];
  check: string;
}

const EFFECTIVE_MODE = 'sep-0000-rendering-client-effective-mode';
const READS_TABLES = 'sep-0000-rendering-client-reads-tables';
const UNKNOWN_MEMBER = 'sep-0000-rendering-client-unknown-member-ignored';
const NOT_STATED = 'sep-0000-rendering-client-not-stated-is-partial';
const NEVER_FATAL = 'sep-0000-rendering-client-malformed-never-fatal';
const DECLARES = 'sep-0000-rendering-client-declares';

const verbatim = (partial: boolean): Reading => ({ mode: 'verbatim', partial });
const summarizable = (partial: boolean): Reading => ({
  mode: 'summarizable',
  partial
});

/** One tool per case; `tool` and `result` are the carrier values (undefined: no carrier). */
export const CASES: Record<string, Case> = {
  ledger: {
    tool: { verbatimHint: true },
    result: { mode: 'verbatim', complete: true },
    expected: verbatim(false),
    check: EFFECTIVE_MODE
  },
  news: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', complete: true },
    expected: summarizable(false),
    check: EFFECTIVE_MODE
  },
  hint_wins: {
    tool: { verbatimHint: true, summarizeOkHint: true },
    result: { complete: true },
    expected: verbatim(false),
    check: EFFECTIVE_MODE
  },
  verbatim_error: {
    tool: { verbatimHint: true },
    result: { mode: 'summarizable', complete: true },
    isError: true,
    expected: verbatim(false),
    check: EFFECTIVE_MODE
  },
  no_hint: {
    tool: { verbatimHint: false },
    expected: { mode: 'unspecified', partial: true },
    check: EFFECTIVE_MODE
  },
  directive_without_mode: {
    tool: { summarizeOkHint: true },
    result: { complete: true },
    expected: verbatim(false),
    check: EFFECTIVE_MODE
  },
  hint_string_false: {
    tool: { verbatimHint: 'false' },
    expected: verbatim(true),
    check: READS_TABLES
  },
  summarize_string_true: {
    tool: { summarizeOkHint: 'true' },
    expected: verbatim(true),
    check: READS_TABLES
  },
  complete_string_true: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', complete: 'true' },
    expected: verbatim(true),
    check: READS_TABLES
  },
  mode_unregistered: {
    tool: { summarizeOkHint: true },
    result: { mode: 'tabular', complete: true },
    expected: verbatim(false),
    check: READS_TABLES
  },
  mode_not_a_string: {
    tool: { summarizeOkHint: true },
    result: { mode: 1, complete: true },
    expected: verbatim(true),
    check: READS_TABLES
  },
  carrier_not_an_object: {
    tool: 'verbatim',
    result: 'complete',
    expected: verbatim(true),
    check: READS_TABLES
  },
  unknown_in_directive: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', complete: true, layout: 'table' },
    expected: summarizable(false),
    unknown: ['layout'],
    check: UNKNOWN_MEMBER
  },
  unknown_in_hints: {
    tool: { summarizeOkHint: true, chartHint: true },
    result: { mode: 'summarizable', complete: true },
    expected: summarizable(false),
    unknown: ['chartHint'],
    check: UNKNOWN_MEMBER
  },
  complete_misspelled: {
    tool: { summarizeOkHint: true },
    result: { mode: 'summarizable', completed: true },
    expected: summarizable(true),
    unknown: ['completed'],
    check: UNKNOWN_MEMBER
  },
  complete_absent: {
    tool: { verbatimHint: true },
    result: { mode: 'verbatim' },
    expected: verbatim(true),
    check: NOT_STATED
  },
  hints_without_directive: {
    tool: { summarizeOkHint: true },
    expected: summarizable(true),
    check: NOT_STATED
  },
  no_carrier: {
    expected: { mode: 'unspecified', partial: false },
    check: NOT_STATED
  }
};

export const REPORT_TOOL = 'report_readings';

const DESCRIPTIONS: Record<string, string> = {
  [EFFECTIVE_MODE]:
    'The client derives the effective mode from the directive and the hints, error results included',
  [READS_TABLES]:
    'The client reads each wire value as the tables give: only true is true, an unregistered or malformed mode is verbatim',
  [UNKNOWN_MEMBER]:
    'An unknown member changes nothing in the reading (MUST), and the client reports it as ignored (SHOULD)',
  [NOT_STATED]:
    'A result whose completeness is not stated is partial; a result with neither carrier is not read'
};

function withCarrier(carrier: unknown): Record<string, unknown> {
  return carrier === undefined
    ? {}
    : { _meta: { [RENDERING_EXTENSION_ID]: carrier } };
}

export class RenderingClientScenario implements Scenario {
  name = 'rendering-client';
  readonly source = { extensionId: RENDERING_EXTENSION_ID } as const;
  description = `Test a client's reading of the rendering extension (${RENDERING_EXTENSION_ID}). Opt-in: \`--suite rendering\`.

**Client Implementation Requirements:** call every tool except \`${REPORT_TOOL}\` with no arguments, then call
\`${REPORT_TOOL}\` with \`{"readings": {<tool name>: {"mode": "verbatim" | "summarizable" | "unspecified",
"partial": <boolean>, "ignored": [<unknown member names it reported as ignored>]}}}\`.`;
  private srv: MockServer | null = null;
  private stateless = false;

  async start(ctx: ScenarioContext): Promise<ScenarioUrls> {
    this.stateless = ctx.specVersion === '2026-07-28';
    this.srv = await ctx.createServer({
      'tools/list': () => ({
        tools: [
          ...Object.entries(CASES).map(([name, c]) => ({
            name,
            inputSchema: { type: 'object' as const },
            ...withCarrier(c.tool)
          })),
          {
            name: REPORT_TOOL,
            inputSchema: {
              type: 'object' as const,
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
    const nameOf = (r: (typeof calls)[number]) =>
      String((r.params as { name?: unknown } | undefined)?.name);
    const report = calls.find((r) => nameOf(r) === REPORT_TOOL);
    const readings = ((
      report?.params as { arguments?: { readings?: unknown } } | undefined
    )?.arguments?.readings ?? {}) as Record<
      string,
      { mode?: unknown; partial?: unknown; ignored?: unknown } | undefined
    >;
    const timestamp = new Date().toISOString();
    const reading = renderingRef('4-reading');
    const result = (
      id: string,
      description: string,
      failures: string[],
      warnings: string[] = [],
      ref = reading
    ): ConformanceCheck => ({
      id,
      name: id,
      description,
      status:
        failures.length > 0
          ? 'FAILURE'
          : warnings.length > 0
            ? 'WARNING'
            : 'SUCCESS',
      timestamp,
      specReferences: [ref],
      errorMessage:
        [...failures, ...warnings].length > 0
          ? [...failures, ...warnings].join('; ')
          : undefined
    });

    const called = new Set(calls.map(nameOf));
    const checks = [
      result(
        NEVER_FATAL,
        'No malformed value makes the client reject a response or stop before it reports',
        [
          ...Object.keys(CASES)
            .filter((name) => !called.has(name))
            .map((name) => `${name} was not called`),
          ...(report ? [] : [`${REPORT_TOOL} was not called`])
        ]
      )
    ];
    for (const [id, description] of Object.entries(DESCRIPTIONS)) {
      const failures: string[] = [];
      const warnings: string[] = [];
      for (const [name, c] of Object.entries(CASES)) {
        if (c.check !== id) continue;
        const got = readings[name];
        if (
          got?.mode !== c.expected.mode ||
          got?.partial !== c.expected.partial
        )
          failures.push(
            `${name}: read as ${JSON.stringify(got ?? null)}, expected ${JSON.stringify(c.expected)}`
          );
        const ignored = Array.isArray(got?.ignored) ? got.ignored : [];
        for (const member of c.unknown ?? [])
          if (!ignored.includes(member))
            warnings.push(`${name}: ${member} not reported as ignored`);
      }
      checks.push(result(id, description, failures, warnings));
    }

    if (this.stateless) {
      // On 2026-07-28 the client declares its capabilities in every request's _meta.
      const declaring = calls.filter((r) => {
        const meta = (r.params as { _meta?: Record<string, unknown> })?._meta;
        const caps = meta?.['io.modelcontextprotocol/clientCapabilities'] as
          | { extensions?: Record<string, unknown> }
          | undefined;
        const settings = caps?.extensions?.[RENDERING_EXTENSION_ID];
        return settings !== null && typeof settings === 'object';
      });
      checks.push(
        result(
          DECLARES,
          `The client declares ${RENDERING_EXTENSION_ID} in its capabilities`,
          [],
          calls.length > 0 && declaring.length === calls.length
            ? []
            : [`${declaring.length} of ${calls.length} calls declare it`],
          renderingRef('1-negotiation')
        )
      );
    }
    return checks;
  }
}
