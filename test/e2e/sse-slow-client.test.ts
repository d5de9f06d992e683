/**
 * An SSE client that reads steadily, but slower than the turn writes, is behind — not stalled:
 * it gets every event up to the terminal one, even though single writes wait on the kernel's
 * send buffer far longer than SSE_WRITE_TIMEOUT_MS (the kernel wakes a writer only after a large
 * part of that buffer is free). Real service, real socket, a reader paced at a fixed byte rate.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnEvent } from '../../src/runtime/events.js';
import type { RunTurnOptions } from '../../src/runtime/turn-types.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';

const DELTAS = 1200;
const DELTA_BYTES = 4 * 1024; // 1200 × 4 KiB ≈ 4.7 MiB: more than the loopback socket buffers hold at first
const READ_BYTES_PER_SECOND = 400 * 1024;
const WRITE_TIMEOUT_MS = 1500; // far below the time one kernel wake-up takes at this rate (~3 s)

let model: ScriptedResponsesServer; // configured (so turns are accepted) but never called
let svc: TestService;
const logLines: string[] = [];

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  // Real service, event log and SSE; the loop is replaced by one that writes many deltas fast.
  const runTurn = async (opts: RunTurnOptions) => {
    const chunk = 'y'.repeat(DELTA_BYTES);
    await opts.emit({ type: 'turn.started', turn_id: 't', model: 'm', tools: [], unavailable: [] } as TurnEvent);
    for (let i = 0; i < DELTAS; i++) await opts.emit({ type: 'message.delta', text: chunk } as TurnEvent);
    await opts.emit({ type: 'turn.completed', output_text: '', stop_reason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 1 } } as TurnEvent);
    return { status: 'completed' as const, outputText: '', stopReason: 'stop', steps: 1, usage: { input_tokens: 1, output_tokens: 1 }, transcript: [...opts.input] };
  };
  svc = await startTestService({
    modelBaseURL: model.baseURL,
    // A small live buffer too: a subscriber that falls behind catches up from the store.
    env: { SSE_WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS), SSE_MAX_BUFFERED_EVENTS: '50', LOG_LEVEL: 'info' },
    logDestination: { write: (line) => void logLines.push(line) },
    overrides: { runTurn: runTurn as any },
  });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

/** GET the turn's events over a raw socket, reading at most `rate` bytes per second; resolves with the text once the terminal event arrived (or the connection closed). */
function readPaced(port: number, turnId: string, rate: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.pause();
    const chunks: Buffer[] = [];
    const tick = setInterval(() => {
      let budget = Math.floor(rate / 20);
      // read(n) returns null while fewer than n bytes are buffered, so ask for what is there.
      for (let c: Buffer | null; budget > 0 && sock.readableLength > 0 && (c = sock.read(Math.min(budget, sock.readableLength)) as Buffer | null); ) {
        chunks.push(c);
        budget -= c.length;
      }
      // Done once the terminal event's frame is complete (the server may keep the connection).
      if (Buffer.concat(chunks.slice(-2)).toString('utf8').match(/event: turn\.\w+\ndata: [^\n]*"type":"turn\.(completed|failed|cancelled)"[^\n]*\n\n/)) finish();
    }, 50);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(tick);
      sock.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const done = () => {
      for (let c: Buffer | null; (c = sock.read() as Buffer | null); ) chunks.push(c);
      finish();
    };
    sock.once('connect', () => sock.write(`GET /v1/turns/${turnId}/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`));
    sock.on('end', done);
    sock.on('close', done);
    sock.on('error', (err) => {
      clearInterval(tick);
      reject(err);
    });
    // Keep 'end' flowing once everything buffered was read.
    sock.on('readable', () => undefined);
  });
}

describe('SSE client that reads steadily but slower than the turn writes', () => {
  it('gets every event up to the terminal one and is not logged as dropped', async () => {
    const created = await api(svc.url, 'POST', '/v1/turns', { input: 'go' });
    expect(created.status).toBe(202);
    const port = Number(new URL(svc.url).port);
    const text = await readPaced(port, created.body.id, READ_BYTES_PER_SECOND);

    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids.length).toBe(DELTAS + 2);
    expect(ids).toEqual(Array.from({ length: DELTAS + 2 }, (_, i) => i + 1));
    expect(text).toMatch(/event: turn\.completed\n/);
    expect(logLines.filter((l) => l.includes('SSE stream dropped'))).toEqual([]);
  }, 60_000);
});
