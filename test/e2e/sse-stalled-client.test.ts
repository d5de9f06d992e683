/**
 * An SSE client that stops reading cannot hold its connection (and a pending write) forever:
 * once a write has waited SSE_WRITE_TIMEOUT_MS without the client consuming anything, the server
 * closes the connection and logs the drop (turn id, reason); the client resumes with
 * Last-Event-ID and gets the rest.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunTurnOptions } from '../../src/runtime/turn-types.js';
import type { TurnEvent } from '../../src/runtime/events.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const DELTAS = 300;
const DELTA_BYTES = 64 * 1024; // 300 × 64 KiB ≈ 19 MiB: more than loopback socket buffers hold
let model: ScriptedResponsesServer; // configured (so turns are accepted) but never called
let svc: TestService;
const logLines: string[] = [];

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  // Real service, event log and SSE; the loop is replaced by one that emits many large deltas.
  const runTurn = async (opts: RunTurnOptions) => {
    const chunk = 'x'.repeat(DELTA_BYTES);
    await opts.emit({ type: 'turn.started', turn_id: 't', model: 'm', tools: [], unavailable: [] } as unknown as TurnEvent);
    for (let i = 0; i < DELTAS; i++) await opts.emit({ type: 'message.delta', text: chunk } as TurnEvent);
    await opts.emit({ type: 'turn.completed', output_text: '', stop_reason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 1 } } as unknown as TurnEvent);
    return { status: 'completed' as const, outputText: '', stopReason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 1 }, transcript: [...opts.input] };
  };
  svc = await startTestService({
    modelBaseURL: model.baseURL,
    env: { SSE_WRITE_TIMEOUT_MS: '300', LOG_LEVEL: 'info' },
    logDestination: { write: (line) => void logLines.push(line) },
    overrides: { runTurn: runTurn as any },
  });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});


describe('SSE client that stops reading', () => {
  it('is disconnected after the write timeout and can resume with Last-Event-ID', async () => {
    const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'go' });
    expect(turn.status).toBe(200);
    const port = Number(new URL(svc.url).port);

    // Connect, send the request, and never read (the socket stays paused).
    const serverSide = new Promise<net.Socket>((resolve) => {
      const onConnection = (s: net.Socket) => {
        if (s.remotePort !== sock.localPort) return;
        svc.app.server.off('connection', onConnection);
        resolve(s);
      };
      svc.app.server.on('connection', onConnection);
    });
    const sock = net.connect(port, '127.0.0.1');
    sock.pause();
    await new Promise((r) => sock.once('connect', r));
    const server = await serverSide;
    let serverClosedAt = 0;
    server.once('close', () => (serverClosedAt = Date.now()));
    sock.write(`GET /v1/turns/${turn.body.id}/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`);
    const sentAt = Date.now();

    // Soon after the 300 ms write timeout the server has closed the stalled stream.
    const deadline = Date.now() + 10_000;
    while (!serverClosedAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(serverClosedAt).toBeGreaterThan(0);
    expect(serverClosedAt - sentAt).toBeGreaterThanOrEqual(250);
    // The drop is logged with the turn id and the reason.
    const dropped = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg?.startsWith('SSE stream dropped'));
    expect(dropped).toEqual([expect.objectContaining({ turn_id: turn.body.id, reason: 'stalled', level: 'warn' })]);

    // What the client gets when it finally reads: part of the stream, cut before the terminal event.
    let text = '';
    sock.on('data', (d) => (text += d));
    sock.resume();
    await new Promise((r) => sock.once('close', r));
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).not.toContain('event: turn.completed');
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    const lastId = ids.at(-1)!;
    expect(lastId).toBeLessThan(DELTAS + 2);

    // Resuming from the last id received gets every remaining event, ending with the terminal one.
    const resumed = await readSse(`${svc.url}/v1/turns/${turn.body.id}/events`, { headers: { 'last-event-id': String(lastId) } });
    expect(resumed.events[0].id).toBe(String(lastId + 1));
    expect(resumed.events.at(-1)?.event).toBe('turn.completed');
    expect(resumed.events.at(-1)?.id).toBe(String(DELTAS + 2));
  });
});
