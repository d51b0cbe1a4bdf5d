/**
 * Rendering extension (io.modelcontextprotocol/rendering): the server side.
 *
 * The suite plays the client. It lists the server's tools, reads the tool carrier of each, calls every tool whose
 * carrier gives a hint and that takes no required argument, and judges the carriers it receives, once from a
 * client that declares the extension and once from one that does not.
 */

import type {
  ClientScenario,
  ConformanceCheck,
  SpecVersion
} from '../../types';
import type { Connection, RunContext } from '../../connection';
import {
  RENDERING_EXTENSION_ID,
  carrierOf,
  carrierProblems,
  renderingRef
} from './rendering-wire';
import {
  continuationOf,
  cutRecords,
  recordsOf,
  wellFormedContinuation
} from './result-continuation-wire';
import { recordingFetch, repeatedMemberProblems } from './repeated-members';

interface ListedTool {
  name: string;
  inputSchema?: { required?: unknown };
  _meta?: Record<string, unknown>;
}

interface CalledResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

function check(
  section: string,
  id: string,
  description: string,
  problems: string[],
  details: Record<string, unknown>,
  failure: 'FAILURE' | 'WARNING' = 'FAILURE'
): ConformanceCheck {
  return {
    id,
    name: id,
    description,
    status: problems.length === 0 ? 'SUCCESS' : failure,
    timestamp: new Date().toISOString(),
    specReferences: [renderingRef(section)],
    errorMessage: problems.length > 0 ? problems.join('; ') : undefined,
    details
  };
}

/** A SKIPPED check: the server under test sent nothing this check observes. */
function skipped(
  section: string,
  id: string,
  description: string,
  reason: string
): ConformanceCheck {
  return {
    id,
    name: id,
    description,
    status: 'SKIPPED',
    timestamp: new Date().toISOString(),
    specReferences: [renderingRef(section)],
    details: { reason }
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The declared extensions, on either wire. */
async function declaredExtensions(connection: Connection): Promise<unknown> {
  const discovered = await connection.discover();
  const capabilities = (
    discovered as { capabilities?: { extensions?: unknown } }
  ).capabilities;
  return capabilities?.extensions;
}

export class RenderingServerScenario implements ClientScenario {
  name = 'rendering-server';
  readonly source = { extensionId: RENDERING_EXTENSION_ID } as const;
  description = `Test a server's rendering extension (${RENDERING_EXTENSION_ID}).

**Server Implementation Requirements:**

- Declare \`${RENDERING_EXTENSION_ID}\` under \`capabilities.extensions\` (\`server/discover\` on 2026-07-28, the
  \`initialize\` result on 2025-06-18 and 2025-11-25, whose capabilities objects are open).
- State \`complete\` in every directive.
- Send tool hints in \`Tool._meta["${RENDERING_EXTENSION_ID}"]\` and result directives in
  \`CallToolResult._meta["${RENDERING_EXTENSION_ID}"]\`, each an object of well-formed members.
- Return the same result whether or not the client declared the extension, and never fail a call because of an
  odd declaration or request \`_meta\`.
- Never give a member name twice in one object of a \`Tool\` or \`CallToolResult\` (judged on the response
  bytes, before any parser keeps one of the values).

**Required server fixtures:** at least one tool whose carrier gives a hint and that takes no required argument.`;

  async run(ctx: RunContext): Promise<ConformanceCheck[]> {
    const checks: ConformanceCheck[] = [];
    let declaring: Connection;
    let plain: Connection;
    let odd: Connection;
    // Every response body as received, for the members a parsed message no longer shows twice.
    const tap = recordingFetch();
    try {
      declaring = await ctx.connect({
        capabilities: { extensions: { [RENDERING_EXTENSION_ID]: {} } },
        fetch: tap.fetch
      });
      plain = await ctx.connect({ capabilities: {}, fetch: tap.fetch });
      odd = await ctx.connect({
        capabilities: {
          extensions: { [RENDERING_EXTENSION_ID]: { unknownSetting: [1, 'x'] } }
        },
        fetch: tap.fetch
      });
    } catch (error) {
      return [
        check(
          '1-negotiation',
          'rendering-server-bootstrap',
          'The client sessions start',
          [errorText(error)],
          {}
        )
      ];
    }
    try {
      checks.push(await this.declaration(declaring, ctx.specVersion));
      const tools = ((
        await declaring.request<{ tools?: ListedTool[] }>('tools/list', {})
      ).tools ?? []) as ListedTool[];
      const hinted = tools.filter(
        (tool) => carrierOf(tool) !== undefined && carrierOf(tool) !== null
      );
      const callable = hinted.filter((tool) => {
        const required = tool.inputSchema?.required;
        return !Array.isArray(required) || required.length === 0;
      });

      const toolProblems = hinted.flatMap((tool) =>
        carrierProblems(carrierOf(tool), 'tool').map(
          (problem) => `${tool.name}: ${problem}`
        )
      );
      checks.push(
        check(
          '2-carriers',
          'rendering-server-hinted-tool',
          'At least one tool gives a rendering hint, in the tool carrier',
          hinted.length === 0
            ? [
                `no tool of ${tools.length} carries ${RENDERING_EXTENSION_ID} in its _meta`
              ]
            : [],
          { tools: tools.length, hinted: hinted.map((tool) => tool.name) }
        )
      );

      const results = new Map<string, CalledResult[]>();
      const resultProblems: string[] = [];
      for (const tool of callable) {
        const called: CalledResult[] = [];
        for (const connection of [declaring, plain]) {
          called.push(
            await connection.request<CalledResult>('tools/call', {
              name: tool.name,
              arguments: {}
            })
          );
        }
        results.set(tool.name, called);
        for (const result of called) {
          const directive = carrierOf(result);
          if (directive !== undefined && directive !== null) {
            resultProblems.push(
              ...carrierProblems(directive, 'result').map(
                (p) => `${tool.name}: ${p}`
              )
            );
          }
        }
      }
      const directives = [...results.values()]
        .flat()
        .filter((r) => carrierOf(r) !== undefined).length;
      const unstated = [...results.entries()]
        .filter(([, called]) =>
          called.some((result) => {
            const directive = carrierOf(result);
            if (directive === undefined || directive === null) return false;
            const complete = (directive as { complete?: unknown }).complete;
            return (
              typeof directive !== 'object' || typeof complete !== 'boolean'
            );
          })
        )
        .map(([name]) => `${name}: a directive that does not state complete`);
      checks.push(
        check(
          '2-carriers',
          'sep-0000-rendering-server-states-complete',
          'Every directive states complete',
          unstated,
          { called: [...results.keys()], directives }
        )
      );
      // A result with a continuation carrier is a part of a longer result: its directive must not say complete,
      // and the next part, fetched with the token, must not hold a piece of a record of this one.
      const parts = [...results.entries()].flatMap(([name, called]) =>
        called
          .filter((result) => {
            const carrier = continuationOf(result);
            return carrier !== undefined && carrier !== null;
          })
          .map((result) => ({ name, result }))
      );
      const noParts = `no tool called with no arguments returned a part (a result with _meta["io.modelcontextprotocol/result-continuation"])`;
      if (parts.length === 0) {
        checks.push(
          skipped(
            '2-carriers',
            'sep-0000-rendering-server-part-not-complete',
            'A part of a longer result does not say complete: true',
            noParts
          )
        );
        checks.push(
          skipped(
            '2-carriers',
            'sep-0000-rendering-server-cuts-between-records',
            'A result limited in size is cut between records',
            noParts
          )
        );
      } else {
        checks.push(
          check(
            '2-carriers',
            'sep-0000-rendering-server-part-not-complete',
            'A part of a longer result does not say complete: true',
            parts
              .filter(
                ({ result }) =>
                  (carrierOf(result) as { complete?: unknown } | undefined)
                    ?.complete === true
              )
              .map(
                ({ name }) =>
                  `${name}: a part with a continuation says complete: true`
              ),
            { parts: parts.map(({ name }) => name) }
          )
        );
        const cuts: string[] = [];
        // What a part gave nothing to judge: a cut is observed only between two parts that both hold records.
        const unjudged: string[] = [];
        let judged = 0;
        for (const { name, result } of parts) {
          const continuation = wellFormedContinuation(result);
          const first = recordsOf(result);
          if (!continuation || !first || first.length === 0) {
            unjudged.push(
              `${name}: ${continuation ? 'no records (objects in the innermost arrays of structuredContent) to judge' : 'no well-formed continuation carrier to follow'}`
            );
            continue;
          }
          const next = await declaring
            .request<CalledResult>('tools/call', {
              name,
              arguments: { [continuation.argument]: continuation.token }
            })
            .catch((error: unknown) => errorText(error));
          if (typeof next === 'string' || next.isError === true) {
            cuts.push(
              `${name}: the next part was refused${typeof next === 'string' ? ` (${next})` : ''}`
            );
            continue;
          }
          const second = recordsOf(next) ?? [];
          if (second.length === 0) {
            unjudged.push(`${name}: the next part has no records to judge`);
            continue;
          }
          judged += 1;
          cuts.push(
            ...cutRecords([first, second]).map(
              (problem) => `${name}: ${problem}`
            )
          );
        }
        checks.push(
          cuts.length === 0 && judged === 0
            ? skipped(
                '2-carriers',
                'sep-0000-rendering-server-cuts-between-records',
                'A result limited in size is cut between records',
                unjudged.join('; ')
              )
            : check(
                '2-carriers',
                'sep-0000-rendering-server-cuts-between-records',
                'A result limited in size is cut between records',
                cuts,
                { parts: parts.map(({ name }) => name), unjudged }
              )
        );
      }
      checks.push(
        check(
          '3-types',
          'sep-0000-rendering-server-carriers-typed',
          'Every carrier value conforms to the types of the specification',
          [...toolProblems, ...resultProblems],
          { toolCarriers: hinted.length, resultCarriers: directives }
        )
      );

      // A partial result may carry a per-caller continuation token in its content, so only results that state
      // complete: true, or carry no directive, are compared whole.
      const comparable = [...results.entries()].filter(([, called]) =>
        called.every((result) => {
          const directive = carrierOf(result) as
            | { complete?: unknown }
            | undefined
            | null;
          return (
            directive === undefined ||
            directive === null ||
            directive.complete === true
          );
        })
      );
      const differing = comparable
        .filter(([, [declared, undeclared]]) => {
          const strip = (r: CalledResult) =>
            JSON.stringify([
              r.content,
              r.structuredContent,
              r.isError ?? false
            ]);
          return strip(declared) !== strip(undeclared);
        })
        .map(([name]) => name);
      // A client that declares odd settings and sends odd request _meta has not declared the extension as the
      // specification defines it: refusing its call is refusing a call for want of the declaration.
      const oddFailures: string[] = [];
      for (const tool of callable) {
        try {
          await odd.request('tools/call', {
            name: tool.name,
            arguments: {},
            _meta: { [RENDERING_EXTENSION_ID]: 'not an object', complete: 0 }
          });
        } catch (error) {
          oddFailures.push(`${tool.name}: ${errorText(error)}`);
        }
      }
      checks.push(
        check(
          '1-negotiation',
          'sep-0000-rendering-server-result-independent-of-declaration',
          'No call is refused, and the records of a result do not change, for want of the declaration',
          [
            ...differing.map(
              (name) =>
                `${name}: content or structuredContent differs without the declaration`
            ),
            ...oddFailures.map(
              (failure) => `refused with an odd declaration: ${failure}`
            )
          ],
          {
            oddDeclarationCalled: callable.map((tool) => tool.name),
            compared: comparable.map(([name]) => name),
            partialNotCompared: [...results.keys()].filter(
              (name) => !comparable.some(([n]) => n === name)
            )
          }
        )
      );

      // no-repeated-members: the bytes of every tools/list and tools/call response above, scanned for a member
      // name given twice in one object of a Tool or CallToolResult.
      const repeated = repeatedMemberProblems(tap.exchanges);
      checks.push(
        check(
          '2-carriers',
          'sep-0000-rendering-server-no-repeated-members',
          'No Tool or CallToolResult gives a member name twice in one object',
          repeated.scanned === 0
            ? ['no tools/list or tools/call response body was recorded']
            : repeated.problems,
          { responsesScanned: repeated.scanned }
        )
      );
    } catch (error) {
      checks.push(
        check(
          '1-negotiation',
          'rendering-server-run',
          'The scenario runs to its end',
          [errorText(error)],
          {}
        )
      );
    } finally {
      await Promise.allSettled([declaring.close(), plain.close(), odd.close()]);
    }
    return checks;
  }

  private async declaration(
    connection: Connection,
    specVersion: SpecVersion
  ): Promise<ConformanceCheck> {
    const extensions = await declaredExtensions(connection);
    const declared =
      extensions !== null &&
      typeof extensions === 'object' &&
      Object.prototype.hasOwnProperty.call(extensions, RENDERING_EXTENSION_ID);
    return check(
      '1-negotiation',
      'sep-0000-rendering-server-declares',
      `The server declares ${RENDERING_EXTENSION_ID} under capabilities.extensions`,
      declared
        ? []
        : [
            `capabilities.extensions does not hold ${RENDERING_EXTENSION_ID} (${specVersion})`
          ],
      { specVersion, extensions: extensions ?? null }
    );
  }
}
