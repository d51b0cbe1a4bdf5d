#!/usr/bin/env node

/**
 * Rendering extension (SEP-0000) negative test client, for rendering-client on 2026-07-28.
 *
 * Reads carriers the naive way, breaking one rule for each check of the scenario: it does not declare the
 * extension, skips a tool whose hints are not an object, takes hint strings at their word, reads any
 * carrier with an unknown member as verbatim, takes a missing `complete` as complete, and ignores the rule for
 * error results. A second client reads right but reports no member it ignored.
 */

import { readRendering } from './everything-client.js';

const RENDERING = 'io.modelcontextprotocol/rendering';
const DIRECTIVE_MEMBERS = ['mode', 'guidance', 'nullDisplay', 'complete'];
const HINT_MEMBERS = ['verbatimHint', 'summarizeOkHint'];

let nextId = 1;
async function request(serverUrl: string, method: string, params: object = {}) {
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2026-07-28';
  const response = await fetch(serverUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': version
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientInfo': {
            name: 'rendering-broken-client',
            version: '1.0.0'
          },
          'io.modelcontextprotocol/clientCapabilities': { tools: {} }
        }
      }
    })
  });
  return (await response.json()).result;
}

function naiveReading(hints: any, directive: any) {
  if (hints === undefined && directive === undefined)
    return { mode: 'unspecified', partial: false };
  const unknown =
    Object.keys(hints ?? {}).some((name) => !HINT_MEMBERS.includes(name)) ||
    Object.keys(directive ?? {}).some(
      (name) => !DIRECTIVE_MEMBERS.includes(name)
    );
  const mode = unknown
    ? 'verbatim'
    : (directive?.mode ??
      (String(hints?.verbatimHint) === 'true'
        ? 'verbatim'
        : String(hints?.summarizeOkHint) === 'true'
          ? 'summarizable'
          : 'unspecified'));
  return { mode, partial: directive?.complete === false };
}

export async function runClient(serverUrl: string): Promise<void> {
  const readings: Record<string, unknown> = {};
  const { tools } = await request(serverUrl, 'tools/list');
  for (const tool of tools) {
    const hints = tool._meta?.[RENDERING];
    if (tool.name === 'report_readings' || typeof hints === 'string') continue;
    const result = await request(serverUrl, 'tools/call', {
      name: tool.name,
      arguments: {}
    });
    readings[tool.name] = naiveReading(hints, result._meta?.[RENDERING]);
  }
  await request(serverUrl, 'tools/call', {
    name: 'report_readings',
    arguments: { readings }
  });
}

/** Reads as the tables give, but reports no member as ignored: the SHOULD half of unknown-member-ignored. */
export async function runClientReportingNothingIgnored(
  serverUrl: string
): Promise<void> {
  const readings: Record<string, unknown> = {};
  const { tools } = await request(serverUrl, 'tools/list');
  for (const tool of tools) {
    if (tool.name === 'report_readings') continue;
    const result = await request(serverUrl, 'tools/call', {
      name: tool.name,
      arguments: {}
    });
    readings[tool.name] = { ...readRendering(tool, result), ignored: [] };
  }
  await request(serverUrl, 'tools/call', {
    name: 'report_readings',
    arguments: { readings }
  });
}
