#!/usr/bin/env node

/**
 * Rendering extension (SEP-0000) negative test server.
 *
 * Serves the rendering-server fixtures, and breaks one rule for each check of the scenario: it does not declare
 * the extension, sends a hint that is not a boolean, omits `complete` from the statement's directive, changes the
 * statement for a client that does not declare the extension, says `complete: true` on a limited result, and cuts
 * that result inside a record. Speaks the 2025-11-25 lifecycle, with a session id that records whether the
 * client declared the extension in `initialize`.
 */

import express from 'express';

const RENDERING = 'io.modelcontextprotocol/rendering';
const RECORDS = [
  { id: '706', label: 'Services', amount: '4902.00' },
  { id: '607', label: 'Purchases', amount: '-1250.50' }
];
const app = express();
app.use(express.json());

function declares(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> })
    ?.extensions;
  return extensions !== undefined && RENDERING in extensions;
}

function call(name: string, args: { limit?: number }, declaring: boolean) {
  if (name === 'test_rendering_statement')
    return {
      content: [
        { type: 'text', text: declaring ? 'Services: 4902.00' : 'Services' }
      ],
      structuredContent: { records: RECORDS },
      _meta: { [RENDERING]: { mode: 'verbatim' } }
    };
  const limited = args.limit !== undefined;
  return {
    content: [{ type: 'text', text: 'Services' }],
    structuredContent: {
      records: limited ? [{ id: '706', label: 'Serv' }] : RECORDS
    },
    _meta: { [RENDERING]: { mode: 'verbatim', complete: true } }
  };
}

app.post('/mcp', (req, res) => {
  const { id, method, params = {} } = req.body ?? {};
  if (id === undefined) return res.status(202).end();
  const declaring = req.header('mcp-session-id') === 'declaring';
  const reply = (result: object) => res.json({ jsonrpc: '2.0', id, result });
  switch (method) {
    case 'initialize':
      res.setHeader(
        'mcp-session-id',
        declares(params.capabilities) ? 'declaring' : 'plain'
      );
      return reply({
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'rendering-broken-server', version: '1.0.0' }
      });
    case 'tools/list':
      return reply({
        tools: ['test_rendering_statement', 'test_rendering_limited'].map(
          (name) => ({
            name,
            inputSchema: { type: 'object' },
            _meta: { [RENDERING]: { verbatimHint: 'yes' } }
          })
        )
      });
    case 'tools/call':
      return reply(call(params.name, params.arguments ?? {}, declaring));
    default:
      return res.json({
        jsonrpc: '2.0',
        id,
        error: { code: -32601, message: `Method not found: ${method}` }
      });
  }
});

// No standalone SSE stream.
app.get('/mcp', (_req, res) => res.status(405).end());

const PORT = parseInt(process.env.PORT || '3000', 10);
app.listen(PORT, () => {
  console.log(
    `Rendering broken server running on http://localhost:${PORT}/mcp`
  );
});
