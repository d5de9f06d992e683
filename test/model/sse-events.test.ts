/**
 * The service's reader of a Responses event stream (src/model/sse-events.ts) against the
 * `openai` SDK's own (`Stream.fromSSEResponse`), on the same bytes from a real HTTP server: awkward
 * chunking (frames and UTF-8 characters split across writes), CRLF and CR line ends, comments,
 * `[DONE]`, error frames, malformed JSON and an unfinished last frame, read through the service's
 * modelFetch (and Node's fetch). Both must yield the same events (a frame the runtime never reads
 * as its `{type}` alone) and fail the same way.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { APIError } from 'openai';
import { Stream } from 'openai/streaming';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFetch } from '../../src/model/model-fetch.js';
import { RESPONSES_UNREAD, sseEvents } from '../../src/model/sse-events.js';

/** Bytes to send per request path, each inner array one `write`. */
const bodies = new Map<string, Buffer[]>();
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks = bodies.get(req.url ?? '') ?? [];
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const next = () => (i < chunks.length ? res.write(chunks[i++], () => setImmediate(next)) : res.end());
    next();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Split `text`'s UTF-8 bytes into writes of `size` bytes (so characters and frames straddle writes). */
function chunked(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

type Outcome = { events: unknown[]; error?: { name: string; message: string; status?: number; error?: unknown } };

/** Read `path` with `reader`, fetched as the service fetches model answers (undici's Node stream body) or by Node's fetch (a web stream). */
async function read(path: string, reader: (res: Response) => AsyncIterable<unknown>, via: 'modelFetch' | 'fetch' = 'modelFetch'): Promise<Outcome> {
  const res = await (via === 'fetch' ? fetch(base + path) : modelFetch(base + path, {}));
  const events: unknown[] = [];
  try {
    for await (const e of reader(res)) events.push(e);
    return { events };
  } catch (err) {
    const e = err as Error & { status?: number; error?: unknown };
    return { events, error: { name: e.constructor.name, message: e.message, status: e.status, error: e.error } };
  }
}

const sdk = (res: Response) => Stream.fromSSEResponse(res, new AbortController(), new OpenAI({ apiKey: 'k' }));

/** The SDK's events with the frames the service leaves unread reduced to `{type}`. */
function expected(out: Outcome, unread: string[]): Outcome {
  return { ...out, events: out.events.map((e) => (unread.includes((e as { type: string }).type) ? { type: (e as { type: string }).type } : e)) };
}

const ev = (type: string, extra: object = {}) => ({ type, ...extra });
const named = (e: { type: string }, eol = '\n') => `event: ${e.type}${eol}data: ${JSON.stringify(e)}${eol}${eol}`;
const unnamed = (e: object, eol = '\n') => `data: ${JSON.stringify(e)}${eol}${eol}`;

const stream = [
  ev('response.created', { response: { id: 'r1', output: [] } }),
  ev('response.in_progress', { response: { id: 'r1' } }),
  ev('response.output_item.added', { item: { type: 'message' } }),
  ev('response.output_text.delta', { delta: 'héllo 🌍 wörld' }),
  ev('response.function_call_arguments.delta', { delta: '{"a"' }),
  ev('response.output_item.done', { output_index: 0, item: { type: 'message', content: [{ type: 'output_text', text: 'héllo 🌍 wörld' }] } }),
  ev('response.completed', { response: { id: 'r1', output: [], usage: { input_tokens: 3, output_tokens: 4 } } }),
];
const UNREAD = ['response.in_progress', 'response.output_item.added', 'response.function_call_arguments.delta'];

const cases: { name: string; text: string; unread: string[] }[] = [
  { name: 'named frames (LF)', text: stream.map((e) => named(e)).join(''), unread: UNREAD },
  { name: 'named frames (CRLF) with comments and a retry line', text: ': keep-alive\r\n\r\n' + stream.map((e) => named(e, '\r\n')).join('retry: 10\r\n\r\n'), unread: UNREAD },
  { name: 'named frames (CR)', text: stream.map((e) => named(e, '\r')).join(''), unread: UNREAD },
  { name: 'unnamed frames (every frame parsed)', text: stream.map((e) => unnamed(e)).join(''), unread: [] },
  { name: '[DONE] ends the stream', text: named(stream[0]) + 'data: [DONE]\n\n' + named(stream[6]), unread: [] },
  { name: 'an error frame', text: named(stream[0]) + `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'quota', message: 'no quota' })}\n\n` + named(stream[6]), unread: [] },
  { name: 'a payload with a top-level error', text: named(stream[0]) + unnamed({ type: 'response.created', error: { code: 'x', message: 'bad' } }), unread: [] },
  { name: 'malformed JSON', text: named(stream[0]) + 'event: response.output_text.delta\ndata: {"delta": \n\n' + named(stream[6]), unread: [] },
  { name: 'an unfinished last frame is still delivered (as by the SDK)', text: named(stream[0]) + 'event: response.completed\ndata: {"type":"response.completed"}\n', unread: [] },
  { name: 'a last frame with no line end at all', text: named(stream[0]) + 'event: response.completed\ndata: {"type":"response.completed"}', unread: [] },
  { name: 'multi-line data joined with LF', text: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",\ndata: "delta":"x"}\n\n', unread: [] },
];

describe('Responses event stream reader (same results as the SDK reader)', () => {
  for (const c of cases) {
    for (const size of [1, 7, 64, 100_000]) {
      it(`${c.name}, written ${size} bytes at a time`, async () => {
        const path = `/${encodeURIComponent(c.name)}/${size}`;
        bodies.set(path, chunked(c.text, size));
        const theirs = await read(path, sdk);
        const ours = await read(path, (res) => sseEvents(res, RESPONSES_UNREAD));
        expect(theirs.events.length + (theirs.error ? 1 : 0)).toBeGreaterThan(0);
        expect(ours).toEqual(expected(theirs, c.unread));
        expect(await read(path, (res) => sseEvents(res, RESPONSES_UNREAD), 'fetch')).toEqual(ours);
        expect(await read(path, (res) => sseEvents(res))).toEqual(theirs); // nothing left unread: the SDK's results exactly
        if (ours.error?.name === 'APIError') expect(ours.error).toMatchObject({ error: expect.anything() });
      });
    }
  }

  it('an error frame becomes the SDK APIError carrying the payload error', async () => {
    bodies.set('/err', [Buffer.from(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { code: 'quota', message: 'no quota' } })}\n\n`)]);
    const res = await fetch(`${base}/err`);
    const err = await (async () => { for await (const _ of sseEvents(res, RESPONSES_UNREAD)) void _; })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).error).toEqual({ code: 'quota', message: 'no quota' });
  });
});

describe('what the reader reports besides events', () => {
  /** Read `text` (written 5 bytes at a time) and log each event, comment and [DONE] in order. */
  async function heard(name: string, text: string): Promise<string[]> {
    const path = `/hooks/${name}`;
    bodies.set(path, chunked(text, 5));
    const log: string[] = [];
    const res = await modelFetch(base + path, {});
    for await (const e of sseEvents<{ n: number }>(res, undefined, { onComment: () => log.push('comment'), onDone: () => log.push('done') })) log.push(`event ${e.n}`);
    return log;
  }

  it('calls onComment once per comment line (keep-alives), and onDone at [DONE]', async () => {
    const text = ': OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\r\n\r\n' + unnamed({ n: 1 }) + ':\n\n' + unnamed({ n: 2 }) + 'data: [DONE]\n\n';
    const log = await heard('comments', text);
    // Comments are reported as the bytes are parsed, events as they are taken: only counts and the
    // order of events are fixed.
    expect(log.filter((l) => l === 'comment')).toHaveLength(3);
    expect(log.filter((l) => l !== 'comment')).toEqual(['event 1', 'event 2', 'done']);
    expect(log.indexOf('comment')).toBe(0);
  });

  it('does not call onDone for a body that ends without [DONE]', async () => {
    expect(await heard('no-done', unnamed({ n: 1 }))).toEqual(['event 1']);
  });

  it('with onUnread, reports the frames left unread by name instead of yielding them', async () => {
    const path = '/hooks/unread';
    const text = named(ev('response.created', { n: 1 })) + named(ev('response.in_progress')) + named(ev('response.function_call_arguments.delta', { delta: '{' })) +
      named(ev('response.output_item.done', { n: 2 })) + unnamed(ev('response.in_progress', { n: 3 })) + 'data: [DONE]\n\n';
    bodies.set(path, chunked(text, 7));
    const unreadSeen: string[] = [];
    const yielded: unknown[] = [];
    const res = await modelFetch(base + path, {});
    for await (const e of sseEvents<{ type: string }>(res, RESPONSES_UNREAD, { onUnread: (type) => unreadSeen.push(type) })) yielded.push(e);
    expect(unreadSeen).toEqual(['response.in_progress', 'response.function_call_arguments.delta']);
    // A frame without an `event:` line is parsed and yielded whatever its type (as without the hook).
    expect(yielded).toEqual([ev('response.created', { n: 1 }), ev('response.output_item.done', { n: 2 }), ev('response.in_progress', { n: 3 })]);
  });
});
