/**
 * Rendering extension (io.modelcontextprotocol/rendering): the server side.
 *
 * The suite plays the client. It reads the declaration, lists the tools, calls the statement fixture from a client
 * that declares the extension and from one that does not, calls the limited fixture with and without a limit, and
 * judges every carrier it receives.
 */

import type {
  ClientScenario,
  ConformanceCheck,
  SpecReference
} from '../../types';
import type { Connection, RunContext } from '../../connection';
import { untestableCheck } from '../untestable';
import {
  LIMITED_FIXTURE,
  RENDERING_EXTENSION_ID,
  STATEMENT_FIXTURE,
  carrierOf,
  carrierProblems,
  recordsOf,
  renderingRef
} from './rendering-wire';

interface CalledResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

type Severity = 'FAILURE' | 'WARNING';

function check(
  id: string,
  ref: SpecReference,
  description: string,
  problems: string[],
  details: Record<string, unknown> = {},
  severity: Severity = 'FAILURE'
): ConformanceCheck {
  return {
    id,
    name: id,
    description,
    status: problems.length === 0 ? 'SUCCESS' : severity,
    timestamp: new Date().toISOString(),
    specReferences: [ref],
    errorMessage: problems.length > 0 ? problems.join('; ') : undefined,
    details
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A call's result, or the reason it was refused (a JSON-RPC error, or `isError: true`). */
async function call(
  connection: Connection,
  name: string,
  args: Record<string, unknown> = {}
): Promise<CalledResult | string> {
  try {
    const result = await connection.request<CalledResult>('tools/call', {
      name,
      arguments: args
    });
    return result.isError === true ? `${name} returned isError: true` : result;
  } catch (error) {
    return `${name} was refused: ${errorText(error)}`;
  }
}

const NEGOTIATION = renderingRef('1-negotiation');
const CARRIERS = renderingRef('2-carriers');

const DESCRIPTIONS = {
  declares: `The server declares ${RENDERING_EXTENSION_ID} under capabilities.extensions`,
  independent:
    'No call is refused, and no result changes, because the client did not declare the extension',
  typed:
    'Every carrier is an object of the members the types define, with their types, and no other member',
  complete: 'Every directive states complete',
  part: 'A result limited in size does not say complete: true',
  cut: 'A result limited in size is cut between records'
};

export class RenderingServerScenario implements ClientScenario {
  name = 'rendering-server';
  readonly source = { extensionId: RENDERING_EXTENSION_ID } as const;
  description = `Test a server's rendering extension (${RENDERING_EXTENSION_ID}). Opt-in: \`--suite rendering\`.

**Server Implementation Requirements:**

- Declare \`${RENDERING_EXTENSION_ID}\` under \`capabilities.extensions\` (the \`initialize\` result, or
  \`server/discover\` on 2026-07-28).
- Send tool hints in \`Tool._meta["${RENDERING_EXTENSION_ID}"]\` and result directives in
  \`CallToolResult._meta["${RENDERING_EXTENSION_ID}"]\`, each an object of well-formed members, no other member.
- State \`complete\` in every directive; never \`complete: true\` on a result that holds fewer records than the
  same call without a limit; cut a limited result between records.
- Return the same result whether or not the client declared the extension.

**Required server fixtures:**

- \`${STATEMENT_FIXTURE}\`: no required argument; a tool carrier with a hint; a result with a directive.
- \`${LIMITED_FIXTURE}\`: an optional integer argument \`limit\`; a result with a directive and
  \`structuredContent.records\`, an array of at least two records without \`limit\`, and its first \`limit\`
  records with it.`;

  async run(ctx: RunContext): Promise<ConformanceCheck[]> {
    const checks: ConformanceCheck[] = [];
    let declaring: Connection;
    let plain: Connection;
    try {
      declaring = await ctx.connect({
        capabilities: { extensions: { [RENDERING_EXTENSION_ID]: {} } }
      });
      plain = await ctx.connect({ capabilities: {} });
    } catch (error) {
      return [
        check(
          'rendering-server-connect',
          NEGOTIATION,
          'The client connections start',
          [errorText(error)]
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
          RENDERING_EXTENSION_ID
        );
      checks.push(
        check(
          'sep-0000-rendering-server-declares',
          NEGOTIATION,
          DESCRIPTIONS.declares,
          declared
            ? []
            : [
                `capabilities.extensions does not hold ${RENDERING_EXTENSION_ID}`
              ],
          { specVersion: ctx.specVersion, extensions: extensions ?? null }
        )
      );

      // A server without tools/list has no fixture: the checks below say so.
      const tools = await declaring
        .request<{
          tools?: { name: string; _meta?: Record<string, unknown> }[];
        }>('tools/list', {})
        .then(
          (listed) => listed.tools ?? [],
          () => []
        );
      const names = new Set(tools.map((tool) => tool.name));
      const received: {
        where: string;
        value: unknown;
        kind: 'tool' | 'result';
      }[] = tools
        .filter((tool) => carrierOf(tool) !== undefined)
        .map((tool) => ({
          where: tool.name,
          value: carrierOf(tool),
          kind: 'tool'
        }));
      const directives: { where: string; value: unknown }[] = [];
      const keep = (where: string, result: CalledResult | string) => {
        if (typeof result === 'string' || carrierOf(result) === undefined)
          return;
        received.push({ where, value: carrierOf(result), kind: 'result' });
        directives.push({ where, value: carrierOf(result) });
      };

      // The statement fixture, called by a client that declares the extension and by one that does not.
      if (!names.has(STATEMENT_FIXTURE)) {
        checks.push(
          untestableCheck(
            'sep-0000-rendering-server-result-independent-of-declaration',
            'sep-0000-rendering-server-result-independent-of-declaration',
            DESCRIPTIONS.independent,
            `the server has no ${STATEMENT_FIXTURE} tool`,
            [NEGOTIATION]
          )
        );
      } else {
        const withIt = await call(declaring, STATEMENT_FIXTURE);
        const without = await call(plain, STATEMENT_FIXTURE);
        keep(`${STATEMENT_FIXTURE} (declaring client)`, withIt);
        keep(`${STATEMENT_FIXTURE} (client without the extension)`, without);
        const problems = [withIt, without].filter(
          (result): result is string => typeof result === 'string'
        );
        const records = (result: CalledResult) =>
          JSON.stringify([result.content, result.structuredContent ?? null]);
        if (
          typeof withIt !== 'string' &&
          typeof without !== 'string' &&
          records(withIt) !== records(without)
        )
          problems.push(
            'content or structuredContent differs when the client does not declare the extension'
          );
        checks.push(
          check(
            'sep-0000-rendering-server-result-independent-of-declaration',
            NEGOTIATION,
            DESCRIPTIONS.independent,
            problems
          )
        );
      }

      // The limited fixture, without a limit and with a limit of one record.
      const limitedChecks = await this.limited(declaring, names, keep);

      if (directives.length === 0) {
        checks.push(
          untestableCheck(
            'sep-0000-rendering-server-states-complete',
            'sep-0000-rendering-server-states-complete',
            DESCRIPTIONS.complete,
            `no call of ${STATEMENT_FIXTURE} or ${LIMITED_FIXTURE} returned a directive`,
            [CARRIERS]
          )
        );
      } else {
        checks.push(
          check(
            'sep-0000-rendering-server-states-complete',
            CARRIERS,
            DESCRIPTIONS.complete,
            directives
              .filter(
                ({ value }) =>
                  typeof (value as { complete?: unknown } | null)?.complete !==
                  'boolean'
              )
              .map(
                ({ where }) => `${where}: the directive does not state complete`
              ),
            { directives: directives.length }
          )
        );
      }
      checks.push(
        received.length === 0
          ? untestableCheck(
              'sep-0000-rendering-server-carriers-typed',
              'sep-0000-rendering-server-carriers-typed',
              DESCRIPTIONS.typed,
              'the server sent no carrier: no tool hints, no directive',
              [CARRIERS]
            )
          : check(
              'sep-0000-rendering-server-carriers-typed',
              CARRIERS,
              DESCRIPTIONS.typed,
              received.flatMap(({ where, value, kind }) =>
                carrierProblems(value, kind).map(
                  (problem) => `${where}: ${problem}`
                )
              ),
              { carriers: received.length }
            )
      );
      checks.push(...limitedChecks);
    } catch (error) {
      checks.push(
        check(
          'rendering-server-run',
          NEGOTIATION,
          'The scenario runs to its end',
          [errorText(error)]
        )
      );
    } finally {
      await Promise.allSettled([declaring.close(), plain.close()]);
    }
    return checks;
  }

  /** part-not-complete and cut-between-records, from the limited fixture. */
  private async limited(
    connection: Connection,
    names: Set<string>,
    keep: (where: string, result: CalledResult | string) => void
  ): Promise<ConformanceCheck[]> {
    const untestable = (reason: string) => [
      untestableCheck(
        'sep-0000-rendering-server-part-not-complete',
        'sep-0000-rendering-server-part-not-complete',
        DESCRIPTIONS.part,
        reason,
        [CARRIERS]
      ),
      untestableCheck(
        'sep-0000-rendering-server-cuts-between-records',
        'sep-0000-rendering-server-cuts-between-records',
        DESCRIPTIONS.cut,
        reason,
        [CARRIERS]
      )
    ];
    if (!names.has(LIMITED_FIXTURE))
      return untestable(`the server has no ${LIMITED_FIXTURE} tool`);
    const whole = await call(connection, LIMITED_FIXTURE);
    const part = await call(connection, LIMITED_FIXTURE, { limit: 1 });
    keep(`${LIMITED_FIXTURE} without a limit`, whole);
    keep(`${LIMITED_FIXTURE} with limit 1`, part);
    if (typeof whole === 'string') return untestable(whole);
    if (typeof part === 'string') return untestable(part);
    const all = recordsOf(whole);
    const some = recordsOf(part);
    if (!all || all.length < 2)
      return untestable(
        `${LIMITED_FIXTURE} without a limit returned no structuredContent.records of two records or more`
      );
    if (!some || some.length === 0 || some.length >= all.length)
      return untestable(
        `${LIMITED_FIXTURE} with limit 1 returned ${some ? some.length : 'no'} records of ${all.length}: not a limited result`
      );
    const directive = carrierOf(part) as { complete?: unknown } | undefined;
    const cut = some
      .map((record, index) => [record, all[index]])
      .filter(
        ([record, whole]) => JSON.stringify(record) !== JSON.stringify(whole)
      )
      .map(
        ([record]) =>
          `the limited result holds ${JSON.stringify(record)}, which is not a whole record of the result`
      );
    return [
      check(
        'sep-0000-rendering-server-part-not-complete',
        CARRIERS,
        DESCRIPTIONS.part,
        directive?.complete === true
          ? [
              `${some.length} records of ${all.length}, and the directive says complete: true`
            ]
          : [],
        { records: some.length, of: all.length }
      ),
      check(
        'sep-0000-rendering-server-cuts-between-records',
        CARRIERS,
        DESCRIPTIONS.cut,
        cut,
        { records: some.length, of: all.length }
      )
    ];
  }
}
