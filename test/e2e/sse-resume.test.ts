/**
 * The SSE rules of GET /v1/turns/{id}/events, exercised on a real server with a real SSE client,
 * over turns whose events are appended straight to the real event log (no model involved).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { createParser } from 'eventsource-parser';
import type { TurnEvent } from '../../src/runtime/events.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ env: { SSE_HEARTBEAT_MS: '150', SSE_MAX_BUFFERED_EVENTS: '10' } });
});
afterAll(async () => {
  await svc.close();
});

/** A turn record that no runner picks up (not queued in memory); events come from the test. */
function newTurn(): string {
  const id = uuidv7();
  svc.services.turnStore.insert({
    id,
    agent_id: 'default',
    kind: 'main',
    origin: { type: 'api' },
    model: 'scripted-model',
    created_at: new Date().toISOString(),
    metadata: null,
    request: { input: 'x', agent_id: 'default' },
    idempotency_key: null,
    request_hash: null,
  });
  return id;
}

const append = (id: string, e: TurnEvent) => svc.services.eventLog.append(id, e);
const delta = (text: string): TurnEvent => ({ type: 'message.delta', text });
const done: TurnEvent = { type: 'turn.completed', output_text: 'ok', stop_reason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 1 } };

async function finishedTurn(n: number): Promise<string> {
  const id = newTurn();
  await append(id, { type: 'turn.started', turn_id: id, model: 'm', tools: [], unavailable: [] });
  for (let i = 0; i < n - 2; i++) await append(id, delta(`d${i}`));
  await append(id, done);
  return id;
}

describe('GET /v1/turns/{id}/events', () => {
  it('replays a finished turn from the first event with string ids, event names and JSON data, then closes', async () => {
    const id = await finishedTurn(5);
    const r = await readSse(`${svc.url}/v1/turns/${id}/events`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.headers.get('x-accel-buffering')).toBe('no');
    expect(r.serverClosed).toBe(true);
    expect(r.events.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(r.events.map((e) => e.event)).toEqual(['turn.started', 'message.delta', 'message.delta', 'message.delta', 'turn.completed']);
    expect(r.events[1].json).toMatchObject({ type: 'message.delta', text: 'd0', seq: 2, turn_id: id });
    expect(typeof r.events[1].json.created_at).toBe('string');
  });

  it('resumes after every possible Last-Event-ID with exactly the remaining events', async () => {
    const id = await finishedTurn(6);
    for (let k = 0; k <= 6; k++) {
      const r = await readSse(`${svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': String(k) } });
      expect(r.status).toBe(200);
      expect(r.events.map((e) => Number(e.id))).toEqual(Array.from({ length: 6 - k }, (_, i) => k + 1 + i));
      expect(r.serverClosed).toBe(true);
    }
  });

  it('reads the log only for its events from the start: the last event is looked up only for a resume', async () => {
    const id = await finishedTurn(4);
    const log = svc.services.eventLog;
    const last = log.last.bind(log);
    let lastReads = 0;
    log.last = (streamId) => {
      if (streamId === id) lastReads++;
      return last(streamId);
    };
    try {
      const fromStart = await readSse(`${svc.url}/v1/turns/${id}/events`);
      expect(fromStart.events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4]);
      expect(lastReads).toBe(0);
      const past = await readSse(`${svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': '4' } });
      expect(past.events).toEqual([]);
      expect(past.serverClosed).toBe(true);
      expect(lastReads).toBe(1);
    } finally {
      log.last = last;
    }
  });

  it('replays a long log across several pages without a gap', async () => {
    const id = await finishedTurn(1234);
    const r = await readSse(`${svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': '7' } });
    expect(r.events.map((e) => Number(e.id))).toEqual(Array.from({ length: 1234 - 7 }, (_, i) => i + 8));
  });

  it('accepts ?after= and lets the Last-Event-ID header win over it', async () => {
    const id = await finishedTurn(4);
    const q = await readSse(`${svc.url}/v1/turns/${id}/events?after=2`);
    expect(q.events.map((e) => e.id)).toEqual(['3', '4']);
    const both = await readSse(`${svc.url}/v1/turns/${id}/events?after=1`, { headers: { 'last-event-id': '3' } });
    expect(both.events.map((e) => e.id)).toEqual(['4']);
  });

  it('answers 400 for an id beyond the log or one that is not a number, never hangs', async () => {
    const id = await finishedTurn(3);
    const beyond = await readSse(`${svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': '4' }, timeoutMs: 5000 });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.code).toBe('invalid_last_event_id');
    const junk = await api(svc.url, 'GET', `/v1/turns/${id}/events?after=abc`);
    expect(junk.status).toBe(400);
    expect(junk.body.error.code).toBe('invalid_last_event_id');
    expect(junk.body.error.message).toBe('after "abc" is not an event id: send the id of the last event received (a non-negative integer), or leave out after to start from the first event');
    // A number too long to be any stored id is beyond the log, not "not a number".
    const huge = await api(svc.url, 'GET', `/v1/turns/${id}/events?after=${'9'.repeat(30)}`);
    expect(huge.status).toBe(400);
    expect(huge.body.error).toMatchObject({
      code: 'invalid_last_event_id',
      message: `after ${'9'.repeat(30)} is beyond the last stored event (3): resume after an id of at most 3, or leave out after to start from the first event`,
      details: { path: 'after', last_event_id: 3 },
    });
    const live = newTurn();
    const early = await api(svc.url, 'GET', `/v1/turns/${live}/events?after=1`);
    expect(early.status).toBe(400);
  });

  it('names the header or parameter it read and says what to send: resume at most at the last id, or send none', async () => {
    const id = await finishedTurn(4);
    const beyond = await api(svc.url, 'GET', `/v1/turns/${id}/events`, undefined, { 'last-event-id': '5' });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error).toEqual({
      code: 'invalid_last_event_id',
      message: 'Last-Event-ID 5 is beyond the last stored event (4): resume after an id of at most 4, or send no Last-Event-ID to start from the first event',
      details: { path: 'headers.last-event-id', last_event_id: 4 },
    });
    const junk = await api(svc.url, 'GET', `/v1/turns/${id}/events`, undefined, { 'last-event-id': 'x1' });
    expect(junk.body.error).toEqual({
      code: 'invalid_last_event_id',
      message: 'Last-Event-ID "x1" is not an event id: send the id of the last event received (a non-negative integer), or send no Last-Event-ID to start from the first event',
      details: { path: 'headers.last-event-id', last_event_id: 4 },
    });
    const junkQuery = await api(svc.url, 'GET', `/v1/turns/${id}/events?after=abc`);
    expect(junkQuery.body.error.details).toEqual({ path: 'after', last_event_id: 4 });
  });

  it('shows a value that is not an id escaped and clipped: bidi controls and C1 controls as \\uXXXX, a header\'s UTF-8 as sent', async () => {
    const id = await finishedTurn(4);
    const after = await api(svc.url, 'GET', `/v1/turns/${id}/events?after=${encodeURIComponent('\u202E1\u0085')}`);
    expect(after.status).toBe(400);
    expect(after.body.error.message).toBe('after "\\u202E1\\u0085" is not an event id: send the id of the last event received (a non-negative integer), or leave out after to start from the first event');
    expect(after.body.error.message).not.toMatch(/[\u0080-\u009f\u202e]/);
    const long = await api(svc.url, 'GET', `/v1/turns/${id}/events?after=${'x'.repeat(300)}`);
    expect(long.body.error.message.startsWith(`after "${'x'.repeat(40)}"… (300 characters) is not an event id: `)).toBe(true);
    // Node reads header bytes as latin1: the UTF-8 bytes of "é\u202E" are sent, one latin1 character each.
    const header = await api(svc.url, 'GET', `/v1/turns/${id}/events`, undefined, { 'last-event-id': Buffer.from('é\u202E', 'utf8').toString('latin1') });
    expect(header.status).toBe(400);
    expect(header.body.error.message.startsWith('Last-Event-ID "é\\u202E" is not an event id: ')).toBe(true);
    // Bytes that are not UTF-8 are shown as read (one latin1 character each).
    const latin1 = await api(svc.url, 'GET', `/v1/turns/${id}/events`, undefined, { 'last-event-id': 'caf\u00e9' });
    expect(latin1.body.error.message.startsWith('Last-Event-ID "café" is not an event id: ')).toBe(true);
  });

  it('refuses a Last-Event-ID header given twice as such, not as the joined value "1, 3"', async () => {
    const id = await finishedTurn(4);
    const r = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = http.get(`${svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': ['1', '3'] } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'the Last-Event-ID header is given 2 times; give it once',
      details: [{ path: 'headers.last-event-id', code: 'duplicate_header', message: 'is given 2 times; give it once' }],
    });
  });

  it('answers 404 with the envelope for an unknown turn', async () => {
    const r = await api(svc.url, 'GET', `/v1/turns/${uuidv7()}/events`);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });

  it('switches from stored to live events without a gap or duplicate while events keep arriving', async () => {
    for (let round = 0; round < 8; round++) {
      const id = newTurn();
      for (let i = 0; i < 3; i++) await append(id, delta(`s${i}`));
      const total = 300;
      // Keep appending on every tick while the client connects, replays and goes live.
      const writer = (async () => {
        for (let i = 3; i < total - 1; i++) {
          await append(id, delta(`l${i}`));
          if (i % (round + 1) === 0) await new Promise((r) => setImmediate(r));
        }
        await append(id, done);
      })();
      const r = await readSse(`${svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': '1' } });
      await writer;
      expect(r.events.map((e) => Number(e.id))).toEqual(Array.from({ length: total - 1 }, (_, i) => i + 2));
      expect(r.serverClosed).toBe(true);
    }
  });

  it('keeps CR and LF inside event text from injecting SSE fields', async () => {
    const id = newTurn();
    const evil = 'line1\n\nevent: turn.completed\ndata: {"x":1}\r\nid: 99\rretry: 1';
    await append(id, delta(evil));
    await append(id, done);
    const r = await readSse(`${svc.url}/v1/turns/${id}/events`);
    expect(r.events.map((e) => e.event)).toEqual(['message.delta', 'turn.completed']);
    expect(r.events[0].json.text).toBe(evil);
    expect(r.events.map((e) => e.id)).toEqual(['1', '2']);
  });

  it('sends heartbeat comments while a turn is quiet', async () => {
    const id = newTurn();
    await append(id, delta('a'));
    setTimeout(() => void append(id, done), 700);
    const r = await readSse(`${svc.url}/v1/turns/${id}/events`);
    expect(r.events.map((e) => e.event)).toEqual(['message.delta', 'turn.completed']);
    expect(r.comments.filter((c) => c.includes('heartbeat')).length).toBeGreaterThanOrEqual(2);
  });

  it('survives a client that disconnects mid-stream while events keep coming', async () => {
    const id = newTurn();
    await append(id, delta('first'));
    const r = await readSse(`${svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.id === '1' });
    expect(r.events).toHaveLength(1);
    for (let i = 0; i < 50; i++) await append(id, delta(`after-close-${i}`));
    await append(id, done);
    const again = await readSse(`${svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': '1' } });
    expect(again.events).toHaveLength(51);
    expect((await api(svc.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('lets a subscriber that falls further behind than its live buffer catch up from the store, without loss', async () => {
    const id = newTurn();
    await append(id, delta('start'));
    let response: http.IncomingMessage | undefined;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${svc.url}/v1/turns/${id}/events`, { headers: { accept: 'text/event-stream' } }, (res) => {
        response = res;
        res.pause(); // stop reading for a while: far more than SSE_MAX_BUFFERED_EVENTS (10) pile up
        resolve();
      });
      req.on('error', reject);
    });
    const big = 'x'.repeat(64 * 1024);
    const total = 400;
    for (let i = 0; i < total; i++) {
      await append(id, delta(big));
      if (i % 20 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    await append(id, done);
    // Reading again (well within SSE_WRITE_TIMEOUT_MS): every event arrives, in order, to the end.
    const ids: string[] = [];
    const parser = createParser({ onEvent: (m) => ids.push(m.id ?? '') });
    await new Promise<void>((resolve) => {
      response!.on('data', (c: Buffer) => {
        parser.feed(c.toString('utf8'));
        if (ids.length === total + 2) resolve();
      });
      response!.on('end', resolve);
      response!.on('error', () => resolve());
      response!.on('close', () => resolve());
      response!.resume();
    });
    response!.destroy();
    expect(ids.map(Number)).toEqual(Array.from({ length: total + 2 }, (_, i) => i + 1));
  });
});

describe('shutdown', () => {
  it('closes promptly while a client follows a turn that has not ended, cutting its stream', async () => {
    const own = await startTestService();
    const id = uuidv7();
    own.services.turnStore.insert({
      id, agent_id: 'default', kind: 'main', origin: { type: 'api' }, model: 'm', created_at: new Date().toISOString(),
      metadata: null, request: { input: 'x', agent_id: 'default' }, idempotency_key: null, request_hash: null,
    });
    await own.services.eventLog.append(id, delta('waiting'));
    const reading = readSse(`${own.url}/v1/turns/${id}/events`, { timeoutMs: 15_000 }).catch((err) => ({ error: err }));
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    await own.close();
    expect(Date.now() - t0).toBeLessThan(5000);
    const r = await reading;
    if ('events' in r) expect(r.events.map((e) => e.id)).toEqual(['1']);
  });
});
