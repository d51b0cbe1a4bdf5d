/**
 * A minimal MCP server transport: JSON-RPC over streamable HTTP, every answer a plain JSON response (never SSE).
 *
 * Scenarios that judge a client, and deliberately broken fixture servers, need to put exact bytes on the wire
 * (malformed values included) and to see exactly what the client sent, so nothing here parses or validates MCP
 * messages beyond JSON-RPC framing. `initialize` opens a session (Mcp-Session-Id), GET answers 405 (no
 * server-initiated stream), DELETE ends a session.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isObject, type JsonObject } from './extension.ts';

export interface RpcContext {
  /** The session named by the request's Mcp-Session-Id header, when it is one this server issued. */
  sessionId: string | undefined;
  /** The protocol version the client named in its MCP-Protocol-Version header. */
  protocolVersion: string | undefined;
  headers: IncomingMessage['headers'];
}

/** Thrown by a handler to answer with a JSON-RPC error. */
export class RpcError extends Error {
  code: number;
  data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;

/** Answers one request (returns its `result`) or throws RpcError. Notifications are not passed here. */
export type RpcHandler = (method: string, params: JsonObject, context: RpcContext) => Promise<unknown> | unknown;

export interface ReceivedMessage {
  /** When it arrived. */
  at: string;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  message: JsonObject;
}

export interface RunningServer {
  /** The MCP endpoint, http://127.0.0.1:PORT/mcp. */
  url: string;
  /** Every JSON-RPC message the server received, in order. */
  received: ReceivedMessage[];
  /** Sessions opened by `initialize`, with the params of that initialize. */
  sessions: Map<string, JsonObject>;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...headers
  });
  response.end(text);
}

/** Start the server on a free loopback port. */
export async function startJsonRpcServer(handler: RpcHandler): Promise<RunningServer> {
  const received: ReceivedMessage[] = [];
  const sessions = new Map<string, JsonObject>();

  const answer = async (message: JsonObject, context: RpcContext): Promise<JsonObject | undefined> => {
    if (typeof message.method !== 'string' || !('id' in message)) return undefined; // notification or response
    const params = isObject(message.params) ? message.params : {};
    try {
      const result = await handler(message.method, params, context);
      return { jsonrpc: '2.0', id: message.id as never, result: result as never };
    } catch (error) {
      if (error instanceof RpcError) {
        const body: JsonObject = { code: error.code, message: error.message };
        if (error.data !== undefined) body.data = error.data;
        return { jsonrpc: '2.0', id: message.id as never, error: body };
      }
      const text = error instanceof Error ? error.message : String(error);
      return { jsonrpc: '2.0', id: message.id as never, error: { code: -32603, message: text } };
    }
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/mcp') return send(response, 404);
      const sessionHeader = request.headers['mcp-session-id'];
      const named = typeof sessionHeader === 'string' ? sessionHeader : undefined;
      const sessionId = named !== undefined && sessions.has(named) ? named : undefined;
      if (request.method === 'GET') return send(response, 405, undefined, { allow: 'POST, DELETE' });
      if (request.method === 'DELETE') {
        if (sessionId !== undefined) sessions.delete(sessionId);
        return send(response, sessionId === undefined ? 404 : 200);
      }
      if (request.method !== 'POST') return send(response, 405, undefined, { allow: 'POST, DELETE' });
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readBody(request));
      } catch {
        return send(response, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      const messages = (Array.isArray(parsed) ? parsed : [parsed]).filter(isObject);
      const versionHeader = request.headers['mcp-protocol-version'];
      const context: RpcContext = {
        sessionId,
        protocolVersion: typeof versionHeader === 'string' ? versionHeader : undefined,
        headers: request.headers
      };
      const extraHeaders: Record<string, string> = {};
      for (const message of messages) {
        received.push({
          at: new Date().toISOString(),
          sessionId,
          protocolVersion: context.protocolVersion,
          message
        });
        if (message.method === 'initialize' && 'id' in message) {
          const opened = randomUUID();
          sessions.set(opened, isObject(message.params) ? message.params : {});
          context.sessionId = opened;
          extraHeaders['mcp-session-id'] = opened;
        }
      }
      const answers: JsonObject[] = [];
      for (const message of messages) {
        const reply = await answer(message, context);
        if (reply !== undefined) answers.push(reply);
      }
      if (answers.length === 0) return send(response, 202, undefined, extraHeaders);
      return send(response, 200, Array.isArray(parsed) ? answers : answers[0], extraHeaders);
    })().catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: String(error) });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  };
}
