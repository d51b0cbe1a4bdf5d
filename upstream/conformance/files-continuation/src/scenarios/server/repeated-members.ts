/**
 * Member names given twice in one JSON object, which `JSON.parse` (and so every SDK client) cannot see: it keeps
 * one value of a repeated member. The server scenarios of the rendering and result continuation extensions give
 * their connections a `fetch` that keeps a copy of each response body, then scan the responses to the requests
 * they judge (`tools/list`, `tools/call`) with a parser of their own that reports repeats.
 */

/** One member name given twice in one object: where the object is, and the name. */
export interface RepeatedMember {
  path: string;
  name: string;
}

/** A syntax error the scan met: the text is not one JSON value. */
export class JsonScanError extends Error {
  constructor(message: string, position: number) {
    super(`${message} at character ${position}`);
    this.name = 'JsonScanError';
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * Every member name that one object of `text` gives twice (names compared after their escapes are decoded, so
 * `"a"` and `"\u0061"` are the same name), each with the path of its object (`$`, `.member`, `[index]`). Throws
 * `JsonScanError` when `text` is not one JSON value.
 */
export function repeatedMembers(text: string): RepeatedMember[] {
  const found: RepeatedMember[] = [];
  let at = 0;

  const skipWhitespace = () => {
    while (at < text.length && WHITESPACE.has(text[at])) at++;
  };
  const string = (): string => {
    if (text[at] !== '"') throw new JsonScanError('expected a string', at);
    let end = at + 1;
    while (end < text.length && text[end] !== '"')
      end += text[end] === '\\' ? 2 : 1;
    if (end >= text.length)
      throw new JsonScanError('an unterminated string', at);
    const start = at;
    at = end + 1;
    try {
      // JSON.parse decodes the escapes and refuses what a JSON string may not hold.
      return JSON.parse(text.slice(start, at)) as string;
    } catch {
      throw new JsonScanError('a malformed string', start);
    }
  };
  const expect = (char: string) => {
    skipWhitespace();
    if (text[at] !== char) throw new JsonScanError(`expected ${char}`, at);
    at++;
  };
  const memberPath = (path: string, name: string) =>
    /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
      ? `${path}.${name}`
      : `${path}[${JSON.stringify(name)}]`;

  const value = (path: string): void => {
    skipWhitespace();
    const char = text[at];
    if (char === '{') {
      at++;
      const names = new Set<string>();
      skipWhitespace();
      if (text[at] === '}') {
        at++;
        return;
      }
      for (;;) {
        skipWhitespace();
        const name = string();
        if (names.has(name)) found.push({ path, name });
        names.add(name);
        expect(':');
        value(memberPath(path, name));
        skipWhitespace();
        if (text[at] === ',') {
          at++;
          continue;
        }
        expect('}');
        return;
      }
    }
    if (char === '[') {
      at++;
      skipWhitespace();
      if (text[at] === ']') {
        at++;
        return;
      }
      for (let index = 0; ; index++) {
        value(`${path}[${index}]`);
        skipWhitespace();
        if (text[at] === ',') {
          at++;
          continue;
        }
        expect(']');
        return;
      }
    }
    if (char === '"') {
      string();
      return;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return;
      }
    }
    NUMBER.lastIndex = at;
    if (NUMBER.exec(text) === null)
      throw new JsonScanError('expected a JSON value', at);
    at = NUMBER.lastIndex;
  };

  value('$');
  skipWhitespace();
  if (at !== text.length)
    throw new JsonScanError('text after the JSON value', at);
  return found;
}

/** One HTTP exchange of a connection: the JSON-RPC request it posted and the body of its response, as received. */
export interface Exchange {
  method?: string;
  id?: string | number;
  contentType: string;
  /** The response body as far as the client read it (an SSE stream is read until the response arrives). */
  body: string;
}

/** HTTP statuses whose response has no body. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` that keeps, for each POST, the JSON-RPC method and id it sent and a copy of the response body as the
 * caller reads it; give it to `ctx.connect({ fetch })`.
 */
export function recordingFetch(): {
  fetch: typeof fetch;
  exchanges: Exchange[];
} {
  const exchanges: Exchange[] = [];
  const tapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (
      (init?.method ?? 'GET').toUpperCase() !== 'POST' ||
      response.body === null ||
      NO_BODY.has(response.status)
    )
      return response;
    let method: string | undefined;
    let id: string | number | undefined;
    if (typeof init?.body === 'string') {
      try {
        const sent = JSON.parse(init.body) as {
          method?: unknown;
          id?: unknown;
        };
        if (typeof sent.method === 'string') method = sent.method;
        if (typeof sent.id === 'string' || typeof sent.id === 'number')
          id = sent.id;
      } catch {
        // Not a JSON-RPC request: recorded without a method.
      }
    }
    const exchange: Exchange = {
      method,
      id,
      contentType: response.headers.get('content-type') ?? '',
      body: ''
    };
    exchanges.push(exchange);
    const decoder = new TextDecoder();
    const copy = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        exchange.body += decoder.decode(chunk, { stream: true });
        controller.enqueue(chunk);
      },
      flush() {
        exchange.body += decoder.decode();
      }
    });
    return new Response(response.body.pipeThrough(copy), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    });
  };
  return { fetch: tapped, exchanges };
}

/** The JSON texts of the messages of a response body: the body itself, or the `data` of each SSE event. */
export function messageTexts(exchange: Exchange): string[] {
  if (!exchange.contentType.includes('text/event-stream'))
    return exchange.body.trim() === '' ? [] : [exchange.body];
  const texts: string[] = [];
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) texts.push(data.join('\n'));
    data = [];
  };
  for (const line of exchange.body.split(/\r\n|\r|\n/)) {
    if (line === '') dispatch();
    else if (line.startsWith('data:'))
      data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
  // A stream the client stopped reading after the response: its last event may lack the blank line.
  dispatch();
  return texts;
}

/**
 * Where a repeat breaks the rule of both extensions, by the method of the request: in a `Tool` of a `tools/list`
 * result, or anywhere in a `CallToolResult` (the other members of a response are not the rule's subject).
 */
const JUDGED = new Map<string, RegExp>([
  ['tools/list', /^\$\.result\.tools\[[0-9]+\]/],
  ['tools/call', /^\$\.result(?:$|[.[])/]
]);

/**
 * The members given twice in a `Tool` or a `CallToolResult` of the recorded responses to `tools/list` and
 * `tools/call`, as readable problems, and how many responses were scanned. A response that is not JSON is left
 * to the checks that parse it.
 */
export function repeatedMemberProblems(exchanges: Exchange[]): {
  problems: string[];
  scanned: number;
} {
  const problems: string[] = [];
  let scanned = 0;
  for (const exchange of exchanges) {
    const judged =
      exchange.method === undefined ? undefined : JUDGED.get(exchange.method);
    if (judged === undefined) continue;
    for (const text of messageTexts(exchange)) {
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        continue;
      }
      const id = (message as { id?: unknown } | null)?.id;
      if (id === undefined || id !== exchange.id) continue;
      scanned += 1;
      for (const { path, name } of repeatedMembers(text))
        if (judged.test(path))
          problems.push(
            `the ${exchange.method} response gives ${JSON.stringify(name)} twice in ${path}`
          );
    }
  }
  return { problems: [...new Set(problems)], scanned };
}
