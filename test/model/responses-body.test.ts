/**
 * Request bodies of the Responses adapter (src/model/responses-body.ts) and the append memo both
 * request builders use (src/model/append-memo.ts): the JSON sent is the params' JSON whatever
 * was cached before, and a transcript that changes other than by appending is never served from
 * a stale memo.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import { appendMemo } from '../../src/model/append-memo.js';
import { encodeResponsesBody } from '../../src/model/responses-body.js';
import type { TranscriptItem } from '../../src/model/port.js';
import { toResponsesRequest } from '../../src/model/responses-request.js';

const user = (text: string): TranscriptItem => ({ type: 'message', role: 'user', content: text });
const call = (n: number): TranscriptItem => ({ type: 'function_call', call_id: `call_${n}`, name: 'noop', arguments: `{"n":${n}}` });
const output = (n: number): TranscriptItem => ({ type: 'function_call_output', call_id: `call_${n}`, output: `ok ${n}` });
const tools = [{ type: 'function' as const, name: 'noop', description: 'd', strict: true, parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } }];

function params(input: TranscriptItem[]): ResponseCreateParamsStreaming {
  return toResponsesRequest({ model: 'm', instructions: 'be brief', input, tools, toolChoice: 'auto' });
}

describe('encodeResponsesBody', () => {
  it('is the JSON of the params, round after round of a growing transcript', () => {
    const transcript: TranscriptItem[] = [user('go')];
    for (let n = 0; n < 5; n++) {
      const p = params([...transcript]);
      expect(JSON.parse(encodeResponsesBody(p))).toEqual(JSON.parse(JSON.stringify(p)));
      transcript.push(call(n), output(n));
    }
  });

  it('follows a transcript that was cut or changed, not only appended to (compaction, an edited call)', () => {
    const first = user('go');
    const long = [first, call(0), output(0), call(1), output(1)];
    encodeResponsesBody(params(long));
    const compacted = [first, { type: 'message', role: 'developer', content: 'summary of calls 0 and 1' } as TranscriptItem, call(2), output(2)];
    expect(JSON.parse(encodeResponsesBody(params(compacted))).input).toEqual(JSON.parse(JSON.stringify(params(compacted).input)));
    const edited = [first, { ...(call(0) as object), arguments: '{"n":99}' } as TranscriptItem, output(0)];
    expect(JSON.parse(encodeResponsesBody(params(edited))).input[1]).toMatchObject({ arguments: '{"n":99}' });
  });

  it('keeps string input, absent tools and every other field as they are', () => {
    const p = { model: 'm', input: 'hi', stream: true as const, store: false, include: ['reasoning.encrypted_content'] } as ResponseCreateParamsStreaming;
    expect(JSON.parse(encodeResponsesBody(p))).toEqual(p);
    expect(JSON.parse(encodeResponsesBody({ model: 'm', stream: true }))).toEqual({ model: 'm', stream: true });
  });
});

describe('appendMemo', () => {
  const walks: string[] = [];
  const memo = appendMemo<{ v: string }, readonly string[]>([], (acc, items, from) => {
    const out = acc.slice();
    for (let i = from; i < items.length; i++) {
      walks.push(items[i].v);
      out.push(items[i].v.toUpperCase());
    }
    return out;
  });

  it('walks only the items after the longest prefix it has seen, and never changes a result it gave', () => {
    const a = { v: 'a' }, b = { v: 'b' }, c = { v: 'c' };
    walks.length = 0;
    const first = memo.over([a, b]);
    expect(first).toEqual(['A', 'B']);
    expect(memo.over([a, b, c])).toEqual(['A', 'B', 'C']);
    expect(walks).toEqual(['a', 'b', 'c']);
    expect(first).toEqual(['A', 'B']);
    expect(memo.over([a, b, c])).toEqual(['A', 'B', 'C']);
    expect(walks).toEqual(['a', 'b', 'c']);
  });

  it('rebuilds when an element changed identity, even with the same first element and length', () => {
    const a = { v: 'a' }, b = { v: 'b' };
    memo.over([a, b]);
    walks.length = 0;
    expect(memo.over([a, { v: 'x' }])).toEqual(['A', 'X']);
    expect(walks).toEqual(['a', 'x']);
    expect(memo.over([a])).toEqual(['A']);
    expect(memo.over([])).toEqual([]);
  });

  it('is not fooled by an array changed in place after it was seen', () => {
    const a = { v: 'a' }, b = { v: 'b' };
    const items = [a, b];
    memo.over(items);
    items[1] = { v: 'z' };
    items.push({ v: 'w' });
    expect(memo.over(items)).toEqual(['A', 'Z', 'W']);
  });
});
