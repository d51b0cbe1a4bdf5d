import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerFor } from '../../mock-server/select';
import type { MockServer } from '../../mock-server';
import { testContext } from '../../connection/testing';
import { DRAFT_PROTOCOL_VERSION, type ConformanceCheck } from '../../types';
import { ResultContinuationServerScenario } from './result-continuation';
import { CONTINUATION_EXTENSION_ID } from './result-continuation-wire';
import { RENDERING_EXTENSION_ID } from './rendering-wire';

// A tool that declares the continuation argument `cursor` as the specification asks, and with `verbatim` the
// rendering hint too.
function cursorTool(name: string, { verbatim = false } = {}) {
  return {
    name,
    inputSchema: {
      type: 'object' as const,
      properties: { cursor: { type: 'string' } }
    },
    _meta: {
      [CONTINUATION_EXTENSION_ID]: { argument: 'cursor' },
      ...(verbatim ? { [RENDERING_EXTENSION_ID]: { verbatimHint: true } } : {})
    }
  };
}

// A paged server that breaks the rules of both extensions: it declares neither, its tool carrier has an unknown
// member and its argument is not in inputSchema, its tokens are bare positions (so altered and rebound tokens are
// served), record r2 is cut between parts 1 and 2, part 3 carries a continuation to an empty part, every part says
// complete: true, and it refuses a continuation from a client that did not declare the extension (binding it to
// the declaring session), with a JSON-RPC error; its first part says more to a client that did not declare it.
const ROWS = [
  [
    { id: 'r1', label: 'One' },
    { id: 'r2', label: 'Tw' }
  ],
  [
    { id: 'r2', label: 'Two' },
    { id: 'r3', label: 'Three' }
  ],
  [{ id: 'r4', label: 'Four' }],
  []
];

function declares(params: Record<string, unknown>): boolean {
  const meta = params._meta as Record<string, unknown> | undefined;
  const caps = meta?.['io.modelcontextprotocol/clientCapabilities'] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return caps?.extensions?.[CONTINUATION_EXTENSION_ID] !== undefined;
}

async function brokenServer(): Promise<MockServer> {
  return createServerFor(DRAFT_PROTOCOL_VERSION)({
    'tools/list': () => ({
      tools: [
        {
          name: 'ledger',
          inputSchema: {
            type: 'object',
            properties: { year: { type: 'integer' } }
          },
          _meta: {
            [CONTINUATION_EXTENSION_ID]: { argument: 'cursor', pageSize: 2 },
            [RENDERING_EXTENSION_ID]: { verbatimHint: true }
          }
        }
      ]
    }),
    'tools/call': (params) => {
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      const cursor = args.cursor;
      if (cursor !== undefined && !declares(params))
        throw new Error('no such session');
      const digits =
        typeof cursor === 'string' ? cursor.replace(/\D/g, '') : '';
      const part = Math.min(Number(digits || '0'), ROWS.length - 1);
      const more = part < ROWS.length - 1;
      return {
        // The first part differs when the client did not declare the extension.
        content: [
          {
            type: 'text',
            text: `part ${part + 1}${declares(params) ? '' : ' (plain)'}`
          }
        ],
        structuredContent: { rows: ROWS[part] },
        _meta: {
          [RENDERING_EXTENSION_ID]: { mode: 'verbatim', complete: true },
          ...(more
            ? {
                [CONTINUATION_EXTENSION_ID]: {
                  argument: 'cursor',
                  token: `position-${part + 1}`,
                  expiresAt: '2099-01-01T00:00:00Z'
                }
              }
            : {})
        }
      };
    }
  });
}

const status = (checks: ConformanceCheck[], id: string) =>
  checks.find((c) => c.id === id)?.status;

describe('result-continuation-server against a server that breaks its rules', () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await brokenServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('fails every check the server breaks', async () => {
    const checks = await new ResultContinuationServerScenario().run(
      testContext(server.url, DRAFT_PROTOCOL_VERSION)
    );
    for (const id of [
      'continuation-server-declares',
      'continuation-server-carriers-typed',
      'continuation-server-argument-declared',
      'continuation-server-carrier-iff-more',
      'continuation-server-cuts-between-records',
      'continuation-server-parts-partition',
      'continuation-server-result-independent-of-declaration',
      'continuation-server-rejects-tampered-token',
      'continuation-server-token-bound',
      'continuation-server-expiry-bounded',
      'continuation-server-stateless-continuation'
    ])
      expect([id, status(checks, id)]).toEqual([id, 'FAILURE']);
    // It accepts every altered or rebound token (bare positions): how it refuses one is not observed.
    expect(status(checks, 'continuation-server-rejected-token-error')).toBe(
      'WARNING'
    );
  }, 20000);

  it('fails serves-next-part when the token brings the first part again', async () => {
    const repeating = await createServerFor(DRAFT_PROTOCOL_VERSION)({
      'tools/list': () => ({
        tools: [cursorTool('ledger')]
      }),
      'tools/call': (params) => {
        const args = (params.arguments ?? {}) as Record<string, unknown>;
        // Part 1 again for any token but the walk's own second call: a server that ignores its tokens.
        return {
          content: [{ type: 'text', text: 'part' }],
          structuredContent: { rows: ROWS[0] },
          ...(args.cursor === undefined
            ? {
                _meta: {
                  [CONTINUATION_EXTENSION_ID]: {
                    argument: 'cursor',
                    token: 'abc123'
                  }
                }
              }
            : {})
        };
      }
    });
    try {
      const checks = await new ResultContinuationServerScenario().run(
        testContext(repeating.url, DRAFT_PROTOCOL_VERSION)
      );
      expect(status(checks, 'continuation-server-serves-next-part')).toBe(
        'FAILURE'
      );
      // Its continuation states no expiresAt, which every continuation must.
      expect(status(checks, 'continuation-server-expiry-bounded')).toBe(
        'FAILURE'
      );
      // It refuses no token, so how it refuses one cannot be observed.
      expect(status(checks, 'continuation-server-rejected-token-error')).toBe(
        'WARNING'
      );
    } finally {
      await repeating.close();
    }
  }, 20000);
});

// A two-part result whose tokens state an expiry `lifetimeMs` after they are issued (the token carries it); a
// `lax` server still serves a token after that expiry.
async function expiringServer(
  lifetimeMs: number,
  lax: boolean
): Promise<MockServer> {
  return createServerFor(DRAFT_PROTOCOL_VERSION)({
    'tools/list': () => ({
      tools: [cursorTool('ledger')]
    }),
    'tools/call': (params) => {
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      const cursor = args.cursor;
      if (cursor === undefined) {
        const expiry = Date.now() + lifetimeMs;
        return {
          content: [{ type: 'text', text: 'part 1' }],
          structuredContent: { rows: ROWS[1] },
          _meta: {
            [CONTINUATION_EXTENSION_ID]: {
              argument: 'cursor',
              token: `part2.${expiry}`,
              expiresAt: new Date(expiry).toISOString()
            }
          }
        };
      }
      const expiry = Number(String(cursor).replace(/^part2\./, ''));
      if (!String(cursor).startsWith('part2.') || !(expiry > 0))
        return {
          content: [{ type: 'text', text: 'Unknown token: start again.' }],
          isError: true
        };
      if (!lax && Date.now() >= expiry)
        return {
          content: [{ type: 'text', text: 'Expired token: start again.' }],
          isError: true
        };
      return {
        content: [{ type: 'text', text: 'part 2' }],
        structuredContent: { rows: ROWS[2] }
      };
    }
  });
}

describe('result-continuation-server and a token past its expiry', () => {
  it('fails rejects-expired-token when the server serves an expired token', async () => {
    const lax = await expiringServer(3000, true);
    try {
      const checks = await new ResultContinuationServerScenario().run(
        testContext(lax.url, DRAFT_PROTOCOL_VERSION)
      );
      const expired = checks.find(
        (c) => c.id === 'continuation-server-rejects-expired-token'
      );
      expect(expired?.status).toBe('FAILURE');
      expect(expired?.errorMessage).toMatch(/accepted .* after its expiresAt/);
    } finally {
      await lax.close();
    }
  }, 30000);

  it('reports it untestable when the stated expiry is further away than the scenario waits', async () => {
    const distant = await expiringServer(60000, true);
    try {
      const checks = await new ResultContinuationServerScenario().run(
        testContext(distant.url, DRAFT_PROTOCOL_VERSION)
      );
      const expired = checks.find(
        (c) => c.id === 'continuation-server-rejects-expired-token'
      );
      expect(expired?.status).toBe('FAILURE');
      expect(expired?.details?.untestable).toBe(true);
      expect(String(expired?.details?.reason)).toMatch(
        /more than the 20 s the scenario waits/
      );
    } finally {
      await distant.close();
    }
  }, 20000);

  it('passes it when the server refuses the token once its expiry has passed', async () => {
    const strict = await expiringServer(3000, false);
    try {
      const checks = await new ResultContinuationServerScenario().run(
        testContext(strict.url, DRAFT_PROTOCOL_VERSION)
      );
      expect(status(checks, 'continuation-server-rejects-expired-token')).toBe(
        'SUCCESS'
      );
    } finally {
      await strict.close();
    }
  }, 30000);
});

// A server whose tool and results are well-formed, for the scan of the response bytes.
async function wellFormedServer(specVersion: string): Promise<MockServer> {
  return createServerFor(specVersion as typeof DRAFT_PROTOCOL_VERSION)({
    'tools/list': () => ({
      tools: [cursorTool('ledger', { verbatim: true })]
    }),
    'tools/call': () => ({
      content: [{ type: 'text', text: 'the whole ledger' }],
      structuredContent: { rows: ROWS[1] },
      _meta: { [RENDERING_EXTENSION_ID]: { mode: 'verbatim', complete: true } }
    })
  });
}

/**
 * A proxy in front of `target` that writes each response body with `rewrite` applied: the JSON an SDK client
 * parses stays the same but for the value it keeps of a repeated member. GET (the optional SSE stream) is
 * answered 405.
 */
async function rewritingProxy(
  target: string,
  rewrite: (body: string) => string
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (
          typeof value === 'string' &&
          name !== 'host' &&
          name !== 'connection'
        )
          headers[name] = value;
      void fetch(target, {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined
      })
        .then(async (response) => {
          const body = rewrite(await response.text());
          const out: Record<string, string> = {};
          response.headers.forEach((value, name) => {
            if (name !== 'content-length' && name !== 'transfer-encoding')
              out[name] = value;
          });
          res.writeHead(response.status, out).end(body);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  };
}

/** Each hint and directive member given twice, the second time with another value (the one a parser keeps). */
const repeatMembers = (body: string) =>
  body
    .replace(/"verbatimHint":true/g, '"verbatimHint":true,"verbatimHint":false')
    .replace(/"mode":"verbatim"/g, '"mode":"verbatim","mode":"summary"');

describe.each([DRAFT_PROTOCOL_VERSION, '2025-11-25'])(
  'no-repeated-members under %s',
  (specVersion) => {
    let server: MockServer;
    let proxy: { url: string; close: () => Promise<void> };
    beforeAll(async () => {
      server = await wellFormedServer(specVersion);
      proxy = await rewritingProxy(server.url, repeatMembers);
    });
    afterAll(async () => {
      await proxy.close();
      await server.close();
    });
    const context = (url: string) =>
      testContext(url, specVersion as typeof DRAFT_PROTOCOL_VERSION);

    it('passes the well-formed server', async () => {
      const continuation = await new ResultContinuationServerScenario().run(
        context(server.url)
      );
      expect(
        status(continuation, 'continuation-server-no-repeated-members')
      ).toBe('SUCCESS');
    }, 20000);

    it('warns when a Tool and a CallToolResult give a member twice', async () => {
      const continuation = await new ResultContinuationServerScenario().run(
        context(proxy.url)
      );
      expect(
        status(continuation, 'continuation-server-no-repeated-members')
      ).toBe('WARNING');
    }, 20000);
  }
);

const CALLER_META = 'test.example/caller';
const CREDENTIAL = 'conformance-test-credential-0123456789';

/**
 * A proxy in front of `target` that authenticates as a server does: no Authorization header is the anonymous
 * context, `Bearer CREDENTIAL` the principal `alice`, anything else is answered 401. It tells the mock server
 * behind it the caller in `params._meta["test.example/caller"]` of each request. GET is answered 405.
 */
async function authenticatingProxy(
  target: string
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(405).end();
      return;
    }
    const authorization = req.headers.authorization;
    if (
      authorization !== undefined &&
      authorization !== `Bearer ${CREDENTIAL}`
    ) {
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    const caller = authorization === undefined ? 'anonymous' : 'alice';
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: string | undefined =
        chunks.length > 0 ? Buffer.concat(chunks).toString() : undefined;
      if (body !== undefined) {
        const message = JSON.parse(body) as {
          params?: { _meta?: Record<string, unknown> };
        };
        if (message.params)
          message.params._meta = {
            ...message.params._meta,
            [CALLER_META]: caller
          };
        body = JSON.stringify(message);
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (
          typeof value === 'string' &&
          !['host', 'connection', 'content-length', 'authorization'].includes(
            name
          )
        )
          headers[name] = value;
      void fetch(target, { method: req.method, headers, body })
        .then(async (response) => {
          const out: Record<string, string> = {};
          response.headers.forEach((value, name) => {
            if (name !== 'content-length' && name !== 'transfer-encoding')
              out[name] = value;
          });
          res.writeHead(response.status, out).end(await response.text());
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  };
}

/**
 * A two-part result whose token names the caller it was issued to; a `lax` server serves it to any caller, a
 * strict one only to that caller.
 */
async function contextServer(
  specVersion: string,
  lax: boolean
): Promise<MockServer> {
  return createServerFor(specVersion as typeof DRAFT_PROTOCOL_VERSION)({
    'tools/list': () => ({
      tools: [cursorTool('ledger')]
    }),
    'tools/call': (params) => {
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      const caller = String(
        (params._meta as Record<string, unknown> | undefined)?.[CALLER_META]
      );
      if (args.cursor === undefined)
        return {
          content: [{ type: 'text', text: 'part 1' }],
          structuredContent: { rows: ROWS[1] },
          _meta: {
            [CONTINUATION_EXTENSION_ID]: {
              argument: 'cursor',
              token: `part2.${caller}`
            }
          }
        };
      if (
        !String(args.cursor).startsWith('part2.') ||
        (!lax && args.cursor !== `part2.${caller}`)
      )
        return {
          content: [{ type: 'text', text: 'Not your token: start again.' }],
          isError: true
        };
      return {
        content: [{ type: 'text', text: 'part 2' }],
        structuredContent: { rows: ROWS[2] }
      };
    }
  });
}

describe.each([DRAFT_PROTOCOL_VERSION, '2025-11-25'])(
  'token-bound-to-context under %s',
  (specVersion) => {
    const context = (url: string, bearerToken?: string) => ({
      ...testContext(url, specVersion as typeof DRAFT_PROTOCOL_VERSION),
      bearerToken
    });
    const bound = (checks: ConformanceCheck[]) =>
      checks.find((c) => c.id === 'continuation-server-token-bound-to-context');
    it('fails when the server serves a token in either context', async () => {
      const lax = await contextServer(specVersion, true);
      const proxy = await authenticatingProxy(lax.url);
      try {
        const check = bound(
          await new ResultContinuationServerScenario().run(
            context(proxy.url, CREDENTIAL)
          )
        );
        expect(check?.status).toBe('FAILURE');
        expect(check?.errorMessage).toContain(
          'the token issued anonymously, presented with the credential was accepted'
        );
        expect(check?.errorMessage).toContain(
          'the token issued to the principal, presented anonymously was accepted'
        );
      } finally {
        await proxy.close();
        await lax.close();
      }
    }, 20000);

    it('passes when each token is refused in the other context and served in its own', async () => {
      const strict = await contextServer(specVersion, false);
      const proxy = await authenticatingProxy(strict.url);
      try {
        const checks = await new ResultContinuationServerScenario().run(
          context(proxy.url, CREDENTIAL)
        );
        expect(bound(checks)?.status).toBe('SUCCESS');
        expect(status(checks, 'continuation-server-rejected-token-error')).toBe(
          'SUCCESS'
        );
      } finally {
        await proxy.close();
        await strict.close();
      }
    }, 20000);

    it('fails, not passes, when the server refuses the credential', async () => {
      const strict = await contextServer(specVersion, false);
      const proxy = await authenticatingProxy(strict.url);
      try {
        const check = bound(
          await new ResultContinuationServerScenario().run(
            context(proxy.url, `${CREDENTIAL}-wrong`)
          )
        );
        expect(check?.status).toBe('FAILURE');
      } finally {
        await proxy.close();
        await strict.close();
      }
    }, 20000);

    it('reports it untestable, saying how to enable it, when no credential is given', async () => {
      const strict = await contextServer(specVersion, false);
      try {
        const check = bound(
          await new ResultContinuationServerScenario().run(context(strict.url))
        );
        expect(check?.status).toBe('FAILURE');
        expect(String(check?.details?.reason)).toContain('pass --bearer-token');
      } finally {
        await strict.close();
      }
    }, 20000);
  }
);

// A server that pages a result of text blocks only (no structuredContent), with tokens it checks: what the
// scenarios judge of records cannot be observed, and is untestable: failed, never passed.
async function textPagingServer(pages: number): Promise<MockServer> {
  const expiresAt = () =>
    new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  return createServerFor(DRAFT_PROTOCOL_VERSION)({
    'tools/list': () => ({
      tools: [cursorTool('notes', { verbatim: true })]
    }),
    'tools/call': (params) => {
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      const part =
        args.cursor === undefined
          ? 0
          : args.cursor === 'page-1-of-notes'
            ? 1
            : -1;
      if (part < 0)
        return {
          content: [{ type: 'text', text: 'unknown token: start again' }],
          isError: true
        };
      const more = part < pages - 1;
      return {
        content: [{ type: 'text', text: `note ${part + 1}` }],
        _meta: {
          [RENDERING_EXTENSION_ID]: { mode: 'verbatim', complete: !more },
          ...(more
            ? {
                [CONTINUATION_EXTENSION_ID]: {
                  argument: 'cursor',
                  token: `page-${part + 1}-of-notes`,
                  expiresAt: expiresAt()
                }
              }
            : {})
        }
      };
    }
  });
}

describe('the server scenario fails as untestable what a server gives it nothing to observe', () => {
  it('reports the record checks of parts without structuredContent records untestable', async () => {
    const server = await textPagingServer(2);
    try {
      const url = server.url;
      const continuation = await new ResultContinuationServerScenario().run(
        testContext(url, DRAFT_PROTOCOL_VERSION)
      );
      for (const id of [
        'continuation-server-cuts-between-records',
        'continuation-server-parts-partition'
      ]) {
        const found = continuation.find((c) => c.id === id);
        expect([id, found?.status]).toEqual([id, 'FAILURE']);
        expect(String(found?.details?.reason)).toContain('no records');
      }
      // What text parts do give is judged: the carriers, and their expiry.
      for (const id of [
        'continuation-server-carrier-iff-more',
        'continuation-server-serves-next-part',
        'continuation-server-expiry-bounded'
      ])
        expect([id, status(continuation, id)]).toEqual([id, 'SUCCESS']);
    } finally {
      await server.close();
    }
  }, 20000);

  it('reports the checks of parts untestable, never passed, when no tool pages', async () => {
    const server = await textPagingServer(1);
    try {
      const checks = await new ResultContinuationServerScenario().run(
        testContext(server.url, DRAFT_PROTOCOL_VERSION)
      );
      for (const id of [
        'continuation-server-argument-declared',
        'continuation-server-carrier-iff-more',
        'continuation-server-cuts-between-records',
        'continuation-server-parts-partition',
        'continuation-server-result-independent-of-declaration',
        'continuation-server-serves-next-part',
        'continuation-server-rejects-tampered-token',
        'continuation-server-token-bound',
        'continuation-server-token-bound-to-context',
        'continuation-server-expiry-bounded',
        'continuation-server-rejects-expired-token',
        'continuation-server-rejected-token-error',
        'continuation-server-stateless-continuation'
      ])
        expect([
          id,
          status(checks, id),
          checks.find((c) => c.id === id)?.details?.untestable
        ]).toEqual([
          id,
          id === 'continuation-server-rejected-token-error'
            ? 'WARNING'
            : 'FAILURE',
          true
        ]);
    } finally {
      await server.close();
    }
  }, 20000);
});
