/**
 * An event with fields JSON cannot represent (circular `details`, tool arguments nested thousands
 * of levels deep, a BigInt) is still stored and streamed, with those fields replaced by
 * `"[unserializable: <reason>]"`, so the event sequence of a turn stays complete (no silent gap
 * before `tool.completed` or the terminal event).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';
import { InProcessEventNotifier } from '../../src/store/in-process-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import type { RunTurnOptions } from '../../src/runtime/turn-types.js';
import type { TurnEvent } from '../../src/runtime/events.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

function deepArray(n: number): unknown {
  let v: unknown[] = [];
  for (let i = 0; i < n; i++) v = [v];
  return v;
}

describe('SqliteEventLog with unserializable fields', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'event-log-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores every event, replacing only the offending fields, and notifies the stored form', async () => {
    const db = openDatabase(dir);
    const log = new PublishedEventLog(new SqliteEventLog<any>(db), new InProcessEventNotifier<any>());
    const circular: Record<string, unknown> = { name: 'x' };
    circular.self = circular;
    const seen: unknown[] = [];
    log.subscribe('s1', (e) => seen.push(e.event));

    await log.append('s1', { type: 'tool.started', call_id: 'c1', arguments: { keep: 'yes', deep: deepArray(5000) } });
    await log.append('s1', { type: 'tool.completed', call_id: 'c1', is_error: false, output: 'ok', details: circular });
    await log.append('s1', { type: 'tool.progress', call_id: 'c1', message: 'm', data: { n: 10n } });
    await log.append('s1', { type: 'turn.completed', output_text: 'done' });

    const stored = await log.read('s1', 0);
    expect(stored.map((e) => [e.seq, e.event.type])).toEqual([
      [1, 'tool.started'],
      [2, 'tool.completed'],
      [3, 'tool.progress'],
      [4, 'turn.completed'],
    ]);
    const args = stored[0].event.arguments;
    expect(args.keep).toBe('yes');
    expect(JSON.stringify(args.deep)).toMatch(/"\[unserializable: nested deeper than 64 levels\]"/);
    expect(stored[1].event.details).toEqual({ name: 'x', self: '[unserializable: circular reference]' });
    expect(stored[1].event.output).toBe('ok');
    expect(stored[2].event.data).toEqual({ n: '[unserializable: BigInt]' });
    // Live subscribers got exactly what was stored.
    expect(seen).toEqual(stored.map((e) => e.event));
    db.close();
  });
});

describe('a turn whose tool event has circular details', () => {
  let svc: TestService;
  let model: ScriptedResponsesServer; // configured (so turns are accepted) but never called
  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    // The service with its real event log, turn store and SSE; only the loop is replaced, by one
    // that emits what a tool with circular `details` would produce.
    const runTurn = async (opts: RunTurnOptions) => {
      const details: Record<string, unknown> = { path: '/home/agent/a.txt' };
      details.parent = details;
      const events: TurnEvent[] = [
        { type: 'turn.started', turn_id: 'x', model: 'm', tools: [], unavailable: [] } as unknown as TurnEvent,
        { type: 'tool.started', call_id: 'call_1', name: 'read_file', label: 'read', arguments: { path: 'a.txt' } } as TurnEvent,
        { type: 'tool.completed', call_id: 'call_1', name: 'read_file', label: 'read', is_error: false, output: 'text', details } as TurnEvent,
        { type: 'message.completed', text: 'done' } as TurnEvent,
      ];
      for (const e of events) await opts.emit(e);
      await opts.emit({ type: 'turn.completed', output_text: 'done', stop_reason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 1 } } as unknown as TurnEvent);
      return { status: 'completed' as const, outputText: 'done', stopReason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 1 }, transcript: [...opts.input] };
    };
    svc = await startTestService({ modelBaseURL: model.baseURL, overrides: { runTurn: runTurn as any } });
  });
  afterAll(async () => {
    await svc.close();
    await model.close();
  });

  it('streams tool.completed with a marker in place of the circular field, then the terminal event', async () => {
    const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'go' });
    expect(created.status).toBe(200);
    const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`);
    expect(sse.events.map((e) => e.event)).toEqual(['turn.started', 'tool.started', 'tool.completed', 'message.completed', 'turn.completed']);
    expect(sse.events.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5']);
    const completed = sse.events[2].json;
    expect(completed.output).toBe('text');
    expect(completed.details).toEqual({ path: '/home/agent/a.txt', parent: '[unserializable: circular reference]' });
  });
});

describe('a model answer holding an unpaired surrogate (half an emoji)', () => {
  let svc: TestService;
  let model: ScriptedResponsesServer;
  beforeAll(async () => {
    // On the wire as the JSON escape \ud83d alone, as a provider that cut a character in two sends it.
    model = await startScriptedResponsesServer([{ output: [message('cut \ud83d here')] }]);
    svc = await startTestService({ modelBaseURL: model.baseURL });
  });
  afterAll(async () => {
    await svc.close();
    await model.close();
  });

  it('streams and stores valid Unicode (U+FFFD in its place), so strict JSON parsers read the events', async () => {
    const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'go' });
    expect(created.status).toBe(200);
    const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`);
    const completed = sse.events.find((e) => e.event === 'message.completed')!;
    expect(completed.json.text).toBe('cut \ufffd here');
    for (const e of sse.events) expect(e.data).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    const list = await fetch(`${svc.url}/v1/turns?limit=5`).then((r) => r.text());
    expect(list).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
  });
});
