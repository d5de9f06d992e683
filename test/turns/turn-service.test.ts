/**
 * The turn service without HTTP: queueing under MAX_CONCURRENT_TURNS, cancelling a queued turn,
 * shutdown during a turn (it resumes on the next start), and queued turns surviving a restart. Real runtime, real openai SDK,
 * scripted Responses server, real SQLite in a temporary DATA_DIR.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createServices, type Services } from '../../src/services.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

let model: ScriptedResponsesServer;
let dataDir: string;
const open: Services[] = [];

beforeEach(async () => {
  model = await startScriptedResponsesServer();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'turn-service-'));
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.stop().catch(() => {});
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function services(env: Record<string, string> = {}): Promise<Services> {
  const config = loadConfig({ DATA_DIR: dataDir, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', MODEL: 'm', MODEL_MAX_RETRIES: '0', LOG_LEVEL: 'silent', MAX_CONCURRENT_TURNS: '1', ...env });
  const s = createServices(config, createLogger('silent'));
  await s.start();
  open.push(s);
  return s;
}

const slow = (text: string) => ({ output: [message(text, { chunks: text.split(' ') })], delayMs: 60 });

it('queues turns beyond MAX_CONCURRENT_TURNS and runs them in order', async () => {
  const s = await services();
  model.push(slow('first a b c'), slow('second a b c'));
  const a = await s.turns.create({ input: 'a', agent_id: 'x' });
  const b = await s.turns.create({ input: 'b', agent_id: 'x' });
  expect((await s.turns.get(b.id))!.status).toBe('queued');
  expect(await s.turns.stats()).toEqual({ running: 1, queued: 1, waiting: 0 });
  const [ra, rb] = await Promise.all([s.turns.waitForTerminal(a.id), s.turns.waitForTerminal(b.id)]);
  expect([ra.status, rb.status]).toEqual(['completed', 'completed']);
  expect(rb.output_text).toBe('second a b c');
  expect(Date.parse(rb.started_at!)).toBeGreaterThanOrEqual(Date.parse(ra.completed_at!));
});

it('cancels a queued turn at once without calling the model for it', async () => {
  const s = await services();
  model.push(slow('only a b c'));
  const a = await s.turns.create({ input: 'a', agent_id: 'x' });
  const b = await s.turns.create({ input: 'b', agent_id: 'x' });
  const cancelled = await s.turns.cancel(b.id);
  expect(cancelled!.status).toBe('cancelled');
  expect((await s.eventLog.read(b.id, 0)).map((e) => e.event)).toEqual([{ type: 'turn.cancelled', calls: [] }]);
  expect((await s.turns.waitForTerminal(a.id)).status).toBe('completed');
  expect(model.requests).toHaveLength(1);
  expect(await s.turns.cancel('nope')).toBeUndefined();
});

it('resumes a turn cut by shutdown from its checkpoint after restart, then runs still-queued turns in order', async () => {
  const first = await services();
  model.push({ output: [message('never finished a b c d e f', { chunks: 'never finished a b c d e f'.split(' ') })], delayMs: 400 });
  const a = await first.turns.create({ input: 'a', agent_id: 'x' });
  const b = await first.turns.create({ input: 'b', agent_id: 'x' });
  await new Promise((r) => setTimeout(r, 300));
  await first.stop();
  open.splice(open.indexOf(first), 1);

  model.push({ output: [message('a done')] }, { output: [message('b done')] });
  const second = await services();
  const ra = await second.turns.waitForTerminal(a.id);
  expect(ra).toMatchObject({ status: 'completed', output_text: 'a done' });
  const typesA = (await second.eventLog.read(a.id, 0)).map((e) => e.event.type);
  expect(typesA[0]).toBe('turn.started');
  expect(typesA).toContain('turn.resumed');
  expect(typesA.filter((t) => t === 'turn.completed')).toHaveLength(1);
  const rb = await second.turns.waitForTerminal(b.id);
  expect(rb).toMatchObject({ status: 'completed', output_text: 'b done' });
  expect(Date.parse(rb.started_at!)).toBeGreaterThanOrEqual(Date.parse(ra.completed_at!));
});

it('sees a cancel stored on the turn (as another instance would store it) within about a second', async () => {
  const s = await services();
  model.push({ output: [message('a b c d e f g h i j k l m n o p', { chunks: 'a b c d e f g h i j k l m n o p'.split(' ') })], delayMs: 400 });
  const a = await s.turns.create({ input: 'a', agent_id: 'x' });
  const deadline = Date.now() + 10_000;
  while ((await s.turns.get(a.id))?.status !== 'running' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  // Not through this instance's cancel(): only the stored request, read by the runner's heartbeat.
  expect(await s.turnStore.requestCancel(a.id, new Date().toISOString())).toBe(true);
  const asked = Date.now();
  const rec = await s.turns.waitForTerminal(a.id);
  expect(rec.status).toBe('cancelled');
  expect(Date.now() - asked).toBeLessThan(2500);
  expect((await s.eventLog.last(a.id))?.event).toMatchObject({ type: 'turn.cancelled' });
});
