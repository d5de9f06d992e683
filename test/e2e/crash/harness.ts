/**
 * Crash-test harness: the real service process (src/main.ts) on a fixed loopback port and a
 * temporary DATA_DIR, killed with SIGKILL (or stopped gracefully with SIGTERM) and started again
 * on the same DATA_DIR, against a
 * scripted Responses server in the test process. Also: a slow SearXNG-format search server (a
 * read-only tool that takes long), an SSE reader, and direct reads of the SQLite file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'vitest';
import { functionCall, message, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { api } from '../support/service.js';
import { freePort, spawnService, waitHealthy, type Child } from '../support/child.js';
import { readSse, type SseEvent } from '../support/sse-client.js';

export interface CrashRig {
  url: string;
  dataDir: string;
  /** Start (or restart) the service on the same DATA_DIR and port. */
  start(extraEnv?: Record<string, string>): Promise<void>;
  /** SIGKILL the running service and wait for it to exit. */
  kill(): Promise<void>;
  /** Signal the running service (a graceful stop: SIGTERM unless said) and wait for it to exit; resolves to its exit code. */
  stop(signal?: 'SIGTERM' | 'SIGINT' | 'SIGHUP'): Promise<number | null>;
  /** Send `signal` to the running service, if any, without waiting for anything. */
  signal(signal: NodeJS.Signals): void;
  /** Stop the service (SIGTERM) if running and remove DATA_DIR. */
  dispose(): Promise<void>;
  /** Create a turn (202). */
  createTurn(body: Record<string, unknown>): Promise<string>;
  /** Read a turn's SSE stream from `after` until `stopWhen` (disconnect) or its end. */
  events(id: string, opts?: { after?: number; stopWhen?: (e: SseEvent, all: SseEvent[]) => boolean; timeoutMs?: number }): Promise<SseEvent[]>;
  /** GET /v1/turns/{id}. */
  turn(id: string): Promise<any>;
  /** Wait until the turn is finished and return it. */
  finished(id: string, ms?: number): Promise<any>;
  /** Run SQL on the service database; only while the service is stopped or killed (a running one holds it exclusively). */
  sql(query: string, ...params: unknown[]): unknown[];
}

export async function crashRig(modelBaseURL: string, env: Record<string, string> = {}): Promise<CrashRig> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'turns-crash-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const baseEnv = {
    DATA_DIR: dataDir, PORT: String(port), OPENAI_BASE_URL: modelBaseURL, OPENAI_API_KEY: 'k', MODEL: 'm',
    LOG_LEVEL: 'warn', MODEL_MAX_RETRIES: '0', ...env,
  };
  let child: Child | undefined;
  const rig: CrashRig = {
    url,
    dataDir,
    async start(extraEnv = {}) {
      child = spawnService({ ...baseEnv, ...extraEnv });
      await waitHealthy(url, child, 120_000);
    },
    async kill() {
      if (!child) return;
      child.proc.kill('SIGKILL');
      await child.exited;
      child = undefined;
    },
    signal(signal) {
      child?.proc.kill(signal);
    },
    async stop(signal = 'SIGTERM') {
      if (!child) return null;
      child.proc.kill(signal);
      const code = await child.exited;
      child = undefined;
      return code;
    },
    async dispose() {
      if (child) {
        child.proc.kill('SIGTERM');
        await child.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
    async createTurn(body) {
      const r = await api(url, 'POST', '/v1/turns', body);
      if (r.status !== 202) throw new Error(`create turn: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.id as string;
    },
    async events(id, opts = {}) {
      const headers: Record<string, string> = opts.after ? { 'last-event-id': String(opts.after) } : {};
      const r = await readSse(`${url}/v1/turns/${id}/events`, { headers, stopWhen: opts.stopWhen, timeoutMs: opts.timeoutMs ?? 120_000 });
      return r.events;
    },
    async turn(id) {
      return (await api(url, 'GET', `/v1/turns/${id}`)).body;
    },
    async finished(id, ms = 120_000) {
      const end = Date.now() + ms;
      for (;;) {
        const t = await rig.turn(id);
        if (['completed', 'failed', 'cancelled'].includes(t.status)) return t;
        if (Date.now() > end) throw new Error(`turn ${id} still ${t.status}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    sql(query, ...params) {
      const db = new BetterSqlite3(path.join(dataDir, 'service.db'));
      try {
        const stmt = db.prepare(query);
        return stmt.reader ? stmt.all(...params) : [stmt.run(...params)];
      } finally {
        db.close();
      }
    },
  };
  return rig;
}

/** A SearXNG-format search server answering after `delayMs`; `hits` counts requests. */
export async function slowSearchServer(delayMs: number): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    const timer = setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ results: [{ title: 'Result', url: 'https://example.org/r', content: 'found it' }] }));
    }, delayMs);
    req.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Every function_call in `input` has exactly one function_call_output (and no output is orphaned). */
export function pairing(input: { type?: string; call_id?: string }[]): { calls: string[]; outputs: string[] } {
  return {
    calls: input.filter((i) => i.type === 'function_call').map((i) => i.call_id!).sort(),
    outputs: input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id!).sort(),
  };
}

/**
 * Resolve once `fn` answers true (checked every 50 ms; it may answer with a promise).
 * @throws Error `waitUntil timed out` after `ms` (default 120 s: these tests restart real processes).
 */
export async function waitUntil(fn: () => boolean | Promise<boolean>, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('waitUntil timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The turn's whole stream after a restart, checked to be one seamless log: the events read before
 * the kill or stop (`before`) followed by those read again from `Last-Event-ID` are every stored
 * event once, in order (ids 1..n), with one `turn.resumed`, ending `turn.completed`.
 * @returns every event of the turn.
 */
export async function expectSeamlessStream(rig: CrashRig, id: string, before: SseEvent[]): Promise<SseEvent[]> {
  const lastSeen = Number(before.at(-1)!.id);
  const after = await rig.events(id, { after: lastSeen });
  const all = await rig.events(id);
  expect(after.map((e) => Number(e.id))).toEqual(after.map((_, i) => lastSeen + i + 1));
  expect([...before.map((e) => e.id), ...after.map((e) => e.id)].slice(0, all.length)).toEqual(all.map((e) => e.id));
  expect(all.map((e) => Number(e.id))).toEqual(all.map((_, i) => i + 1));
  expect(all.filter((e) => e.event === 'turn.resumed')).toHaveLength(1);
  expect(all.at(-1)!.event).toBe('turn.completed');
  return all;
}

/**
 * A non-read-only `command` (appending to a marker file, then sleeping) cut while it runs by
 * `interrupt` (SIGKILL or SIGTERM of the service), then a start on the same DATA_DIR: checks the
 * call is not run again (the marker holds one line), the model gets the "interrupted" output for
 * it, exactly one `tool.completed` with `status: "interrupted"` is stored, and the stream is
 * seamless. Starts and disposes of its own rig.
 */
export async function expectCutCommandReportedInterrupted(model: ScriptedResponsesServer, agent: string, interrupt: (rig: CrashRig) => Promise<void>): Promise<void> {
  const rig = await crashRig(model.baseURL);
  try {
    await rig.start();
    const first = model.requests.length;
    model.push({ output: [functionCall('command', { command: 'echo x >> marker; sleep 5' }, { callId: 'call_cmd' })] });
    const id = await rig.createTurn({ input: 'append to marker', tools: ['computer'], agent_id: agent });
    const marker = path.join(rig.dataDir, 'agents', agent, 'home', 'marker');
    const before = await rig.events(id, { stopWhen: (e) => e.event === 'tool.started' });
    await waitUntil(() => existsSync(marker) && readFileSync(marker, 'utf8') === 'x\n');
    await interrupt(rig);
    model.push({ output: [message('noted')] });
    await rig.start();
    expect(await rig.finished(id)).toMatchObject({ status: 'completed', output_text: 'noted' });
    const requests = model.requests.slice(first);
    expect(requests).toHaveLength(2);
    const expected = 'Error: interrupted by a service restart while command was running; it may or may not have taken effect — check before retrying.';
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies as sent
    expect(requests[1].body.input.filter((i: any) => i.type === 'function_call_output')).toEqual([{ type: 'function_call_output', call_id: 'call_cmd', output: expected }]);
    const all = await expectSeamlessStream(rig, id, before);
    const completed = all.filter((e) => e.event === 'tool.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0].json).toMatchObject({ call_id: 'call_cmd', status: 'interrupted', is_error: true, output: expected });
    await new Promise((r) => setTimeout(r, 500));
    expect(readFileSync(marker, 'utf8')).toBe('x\n'); // not run again
  } finally {
    await rig.dispose();
  }
}

/**
 * A read-only call (`web_search` against a search server that answers after 4 s) cut while it
 * runs by `interrupt` (SIGKILL or SIGTERM of the service), then a start on the same DATA_DIR:
 * checks the turn completes with `answer`, the search ran again (2 hits), the completed model round
 * was not requested again (2 requests), the call has exactly one output and it is the search's
 * real one, one `tool.completed` for it is stored, and the stream is seamless. Starts and disposes
 * of its own rig. @returns the call's output as the model got it and every event of the turn.
 */
export async function expectCutReadOnlyCallRunAgain(
  model: ScriptedResponsesServer,
  answer: string,
  interrupt: (rig: CrashRig) => Promise<void>,
): Promise<{ output: string; all: SseEvent[] }> {
  const search = await slowSearchServer(4000);
  const rig = await crashRig(model.baseURL, { WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: search.url });
  try {
    await rig.start();
    const first = model.requests.length;
    model.push({ output: [functionCall('web_search', { query: 'maps' }, { callId: 'call_search' })] });
    const id = await rig.createTurn({ input: 'search maps', tools: ['web'] });
    const before = await rig.events(id, { stopWhen: (e) => e.event === 'tool.started' });
    await waitUntil(() => search.hits() === 1);
    await interrupt(rig);
    model.push({ output: [message(answer)] });
    await rig.start();
    expect(await rig.finished(id)).toMatchObject({ status: 'completed', output_text: answer });
    expect(search.hits()).toBe(2); // read-only: run again
    const requests = model.requests.slice(first);
    expect(requests).toHaveLength(2); // round 1 once, round 2 once
    const input = requests[1].body.input;
    expect(pairing(input)).toEqual({ calls: ['call_search'], outputs: ['call_search'] });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies as sent
    const output = input.find((i: any) => i.type === 'function_call_output').output as string;
    expect(output).toContain('found it');
    const all = await expectSeamlessStream(rig, id, before);
    expect(all.filter((e) => e.event === 'tool.completed').map((e) => e.json.call_id)).toEqual(['call_search']);
    return { output, all };
  } finally {
    await rig.dispose();
    await search.close();
  }
}
