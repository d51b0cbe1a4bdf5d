import { describe, it, expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { testScenarioContext } from '../../mock-server/testing';
import type { ConformanceCheck } from '../../types';
import { CASES, ResultContinuationClientScenario } from './result-continuation';
import { CONTINUATION_EXTENSION_ID } from '../server/result-continuation-wire';

const status = (checks: ConformanceCheck[], id: string) =>
  checks.find((c) => c.id === id)?.status;

// The token of a result's continuation carrier, when it has one that is a string.
function tokenOf(result: {
  _meta?: Record<string, unknown>;
}): string | undefined {
  const carrier = result._meta?.[CONTINUATION_EXTENSION_ID] as
    | { token?: unknown }
    | undefined;
  return typeof carrier?.token === 'string' ? carrier.token : undefined;
}

async function connect(url: string): Promise<Client> {
  const client = new Client(
    { name: 'broken-client', version: '1.0.0' },
    { capabilities: {} }
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('result-continuation-client against a client that breaks its rules', () => {
  it('fails every check the client breaks', async () => {
    const scenario = new ResultContinuationClientScenario();
    const { serverUrl } = await scenario.start(testScenarioContext());
    try {
      const client = await connect(serverUrl);
      const results: Record<string, unknown> = {};
      for (const tool of (await client.listTools()).tools) {
        if (tool.name === 'report_parts') continue;
        const first = await client.callTool({ name: tool.name, arguments: {} });
        const token = tokenOf(first);
        // Follows any carrier, with a token it rewrote; reports everything whole and none of the text.
        if (token !== undefined)
          await client.callTool({
            name: tool.name,
            arguments: { cursor: `${token}x` }
          });
        results[tool.name] = { mode: 'summarizable', partial: false, text: [] };
      }
      await client.callTool({ name: 'report_parts', arguments: { results } });
      await client.close();

      const checks = scenario.getChecks();
      for (const id of [
        'continuation-client-follows-exactly',
        'continuation-client-reads-table',
        'continuation-client-malformed-never-fatal',
        'continuation-client-combination-complete',
        'continuation-client-combined-mode'
      ])
        expect([id, status(checks, id)]).toEqual([id, 'FAILURE']);
    } finally {
      await scenario.stop();
    }
  }, 20000);

  it('fails every check when the client reports nothing', async () => {
    const scenario = new ResultContinuationClientScenario();
    await scenario.start(testScenarioContext());
    try {
      const checks = scenario.getChecks();
      expect(checks.length).toBe(6);
      expect(checks.every((c) => c.status === 'FAILURE')).toBe(true);
    } finally {
      await scenario.stop();
    }
  });
});

describe('result-continuation-client against a client that trusts a broken declaration', () => {
  it('fails reads-table on the tools whose continuation carrier is malformed, and only there', async () => {
    const scenario = new ResultContinuationClientScenario();
    const { serverUrl } = await scenario.start(testScenarioContext());
    try {
      const client = await connect(serverUrl);
      const results: Record<string, unknown> = {};
      for (const tool of (await client.listTools()).tools) {
        const c = CASES[tool.name];
        if (!c) continue;
        const first = await client.callTool({ name: tool.name, arguments: {} });
        const text = [first];
        const token = tokenOf(first);
        if (c.follow && token !== undefined)
          text.push(
            await client.callTool({
              name: tool.name,
              arguments: { cursor: token }
            })
          );
        // Right everywhere, except that a broken declaration is read as no declaration: the directive's
        // `complete: true` is taken at its word.
        const broken = tool.name.startsWith('declaration_');
        results[tool.name] = {
          mode: c.expected.mode ?? 'unspecified',
          partial: broken ? false : c.expected.partial,
          text: text.flatMap((r) =>
            (r.content as { type: string; text?: string }[])
              .filter((b) => b.type === 'text')
              .map((b) => b.text)
          )
        };
      }
      await client.callTool({ name: 'report_parts', arguments: { results } });
      await client.close();

      const checks = scenario.getChecks();
      const table = checks.find(
        (c) => c.id === 'continuation-client-reads-table'
      );
      expect(table?.status).toBe('FAILURE');
      expect(table?.errorMessage).toContain('declaration_misspelled');
      expect(table?.errorMessage).toContain('declaration_mistyped');
      expect(table?.errorMessage).not.toContain('ledger_parts');
      for (const check of checks.filter((c) => c !== table))
        expect([check.id, check.status]).toEqual([check.id, 'SUCCESS']);
    } finally {
      await scenario.stop();
    }
  }, 20000);
});
