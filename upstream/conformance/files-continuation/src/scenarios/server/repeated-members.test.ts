import { describe, it, expect } from 'vitest';
import {
  JsonScanError,
  messageTexts,
  repeatedMemberProblems,
  repeatedMembers
} from './repeated-members';

describe('repeatedMembers', () => {
  it('finds no repeat in JSON without one', () => {
    expect(
      repeatedMembers('{"a":[{"a":1},{"a":2}],"b":{"a":{"b":null}},"c":"a"}')
    ).toEqual([]);
  });

  it('names each object that gives a member twice, by its path', () => {
    expect(
      repeatedMembers(
        '{"tools":[{"name":"x","_meta":{"k":true,"k":false}}],"z":{"a b":{"q":1,"q":2}},"z":0}'
      )
    ).toEqual([
      { path: '$.tools[0]._meta', name: 'k' },
      { path: '$.z["a b"]', name: 'q' },
      { path: '$', name: 'z' }
    ]);
  });

  it('compares names after their escapes are decoded', () => {
    expect(repeatedMembers('{"mode":1,"mod\\u0065":2}')).toEqual([
      { path: '$', name: 'mode' }
    ]);
    expect(repeatedMembers('{"a\\"":1,"a\\\\":2}')).toEqual([]);
  });

  it('refuses what is not one JSON value', () => {
    for (const text of ['{"a":1', '{"a" 1}', '[1,]', '{"a":1} x', "{'a':1}"])
      expect(() => repeatedMembers(text)).toThrow(JsonScanError);
  });
});

describe('repeatedMemberProblems', () => {
  const sse = (message: string) => `event: message\ndata: ${message}\n\n`;

  it('reads the data of each SSE event', () => {
    expect(
      messageTexts({
        contentType: 'text/event-stream',
        body: 'id: 1\ndata: {"a":\ndata: 1}\n\n: a comment\ndata: [2]'
      })
    ).toEqual(['{"a":\n1}', '[2]']);
  });

  it('judges a Tool of tools/list and the whole CallToolResult, in the response to the request only', () => {
    const { problems, scanned } = repeatedMemberProblems([
      {
        method: 'tools/list',
        id: 1,
        contentType: 'application/json',
        body: '{"jsonrpc":"2.0","id":1,"result":{"nextCursor":"a","nextCursor":"b","tools":[{"name":"t","name":"u"}]}}'
      },
      {
        method: 'tools/call',
        id: 2,
        contentType: 'text/event-stream',
        body:
          sse(
            '{"jsonrpc":"2.0","method":"notifications/message","params":{"x":1,"x":2}}'
          ) +
          sse(
            '{"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":false,"isError":true}}'
          )
      },
      {
        method: 'resources/list',
        id: 3,
        contentType: 'application/json',
        body: '{"jsonrpc":"2.0","id":3,"result":{"resources":[],"resources":[]}}'
      }
    ]);
    expect(problems).toEqual([
      'the tools/list response gives "name" twice in $.result.tools[0]',
      'the tools/call response gives "isError" twice in $.result'
    ]);
    expect(scanned).toBe(2);
  });
});
