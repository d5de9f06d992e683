/**
 * SSE fan-out (`npm run bench:fanout`): 100 subscribers on one turn of ~200 events, against a bare
 * `node:http` SSE server replaying the same timeline, in one run.
 *
 * Service side: the real service in this process (bench/lib/bench-service.ts) runs a turn of 99
 * noop rounds (≈ 200 events) against the scripted Responses server; its first model answer is
 * held 1.5 s so all 100 subscribers (`GET /v1/turns/{id}/events`, bench/lib/sse-subscriber.ts)
 * are live before the events flow. Emit time = when the event log notifies the event (stored,
 * then notified), receive time = when a subscriber's socket delivers its frame.
 * Bare side: a `node:http` server with the same 100 subscribers writes the same frames at the
 * same offsets from the first event (the timeline the service turn produced), to every
 * response — the floor of fan-out on this machine.
 * Trials alternate (service, bare, …); per trial p50/p99 of emit→receive over every event and
 * subscriber; the medians over trials are compared. Every subscriber must get every event, in
 * order. Target: service p99 ≤ 1.25 × bare p99. Prints the load average; ends with
 * `verdict: PASS|FAIL <figures>`. `BENCH_TRIALS` (default 5) sets the measured trials,
 * `BENCH_WARMUP` (default 2) the unmeasured ones of both sides before them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import { turnEventData } from '../routes/turns.js';
import { sseFrame } from '../src/http/sse-frames.js';
import { startScriptedResponsesServer, type ResponsesRequestBody } from '../test/support/scripted-responses-server.js';
import { startBenchService } from './lib/bench-service.js';
import { noopRounds } from './lib/raw-loop.js';
import { subscribe, type Subscriber } from './lib/sse-subscriber.js';
import { cpuMs, f, loadLine, median, percentile } from './lib/stats.js';

const SUBSCRIBERS = 100;
const ROUNDS = 99;
const TRIALS = Number(process.env.BENCH_TRIALS ?? 5);
/** Unmeasured trials of both sides first (JIT, heap sizing; one was not enough for bench:service either). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const TARGET = 1.25;

const model = await startScriptedResponsesServer();
const svc = await startBenchService(model.baseURL);
const agent = new http.Agent({ keepAlive: true, maxSockets: SUBSCRIBERS * 2 });

interface Trial { p50: number; p99: number; events: number; lost: number; reordered: number; cpuMs: number }
type Timeline = { at: number; seq: number; frame: Buffer }[];

/** Latencies of every (event, subscriber) pair; lost = pairs never received; reordered = subscribers whose ids were not 1, 2, 3…. */
function measure(emitted: Map<number, number>, subs: Subscriber[], cpu: number): Trial {
  const lat: number[] = [];
  let lost = 0;
  for (const [seq, at] of emitted) {
    for (const s of subs) {
      const got = s.received.get(seq);
      if (got === undefined) lost++;
      else lat.push(got - at);
    }
  }
  const reordered = subs.filter((s) => s.order.some((id, i) => i > 0 && id !== s.order[i - 1] + 1)).length;
  return { p50: percentile(lat, 50), p99: percentile(lat, 99), events: emitted.size, lost, reordered, cpuMs: cpu };
}

async function serviceTrial(): Promise<{ trial: Trial; timeline: Timeline }> {
  const rounds = noopRounds(ROUNDS);
  model.push(async (body: ResponsesRequestBody, i: number) => ({ ...(await rounds(body, i)), holdMs: 1500 }));
  for (let i = 0; i < ROUNDS; i++) model.push(rounds);
  const res = await fetch(`${svc.url}/v1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'go', max_steps: ROUNDS + 1 }) });
  const { id } = (await res.json()) as { id: string };
  const emitted = new Map<number, number>();
  const frames = new Map<number, Buffer>();
  let live = false;
  const off = svc.services.eventLog.subscribe(id, (logged) => {
    if (!live) return;
    emitted.set(logged.seq, performance.now());
    frames.set(logged.seq, sseFrame(logged, turnEventData));
  });
  const subs = Array.from({ length: SUBSCRIBERS }, () => subscribe(`${svc.url}/v1/turns/${id}/events`, agent));
  await Promise.all(subs.map((s) => s.connected));
  await sleep(200); // every stream has replayed what is stored and is live
  live = true;
  const c0 = cpuMs();
  await Promise.all(subs.map((s) => s.done));
  const cpu = cpuMs() - c0;
  off();
  if (model.remaining() !== 0) throw new Error(`the turn left ${model.remaining()} script entries`);
  // The scripted server keeps every request it received (tests read them): a trial's 100 growing
  // bodies, kept for the whole run, would weigh on every later garbage collection of both sides.
  model.requests.length = 0;
  const t0 = Math.min(...emitted.values());
  const timeline = [...emitted].map(([seq, at]) => ({ at: at - t0, seq, frame: frames.get(seq)! }));
  return { trial: measure(emitted, subs, cpu), timeline };
}

async function bareTrial(timeline: Timeline): Promise<Trial> {
  const clients: http.ServerResponse[] = [];
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    clients.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  const subs = Array.from({ length: SUBSCRIBERS }, () => subscribe(url, agent));
  await Promise.all(subs.map((s) => s.connected));
  while (clients.length < SUBSCRIBERS) await sleep(5);
  await sleep(200);
  const emitted = new Map<number, number>();
  const c0 = cpuMs();
  const t0 = performance.now();
  for (const { at, seq, frame } of timeline) {
    const wait = at - (performance.now() - t0);
    if (wait > 2) await sleep(wait - 1); // sleep most of a gap, then spin to its exact offset
    while (performance.now() - t0 < at) await tick();
    emitted.set(seq, performance.now());
    for (const c of clients) c.write(frame);
  }
  for (const c of clients) c.end();
  await Promise.all(subs.map((s) => s.done));
  const cpu = cpuMs() - c0;
  await new Promise<void>((r) => server.close(() => r()));
  return measure(emitted, subs, cpu);
}

console.log(loadLine());
const service: Trial[] = [];
const bare: Trial[] = [];
for (let i = 0; i < WARMUP; i++) {
  const warm = await serviceTrial(); // warm-up (JIT, heap sizing, connections)
  await bareTrial(warm.timeline);
}
for (let t = 0; t < TRIALS; t++) {
  const s = await serviceTrial();
  service.push(s.trial);
  bare.push(await bareTrial(s.timeline));
}
agent.destroy();
await svc.close();
await model.close();

const med = (xs: Trial[], k: 'p50' | 'p99') => median(xs.map((x) => x[k]));
const lost = service.reduce((n, t) => n + t.lost, 0);
const reordered = service.reduce((n, t) => n + t.reordered, 0);
const ratio99 = med(service, 'p99') / med(bare, 'p99');
const ratio50 = med(service, 'p50') / med(bare, 'p50');
console.log(`${SUBSCRIBERS} subscribers, ~${service[0].events} live events per turn, ${TRIALS} trials each (medians of per-trial percentiles):`);
console.log(`  service: emit→receive p50 ${f(med(service, 'p50'), 2)} ms, p99 ${f(med(service, 'p99'), 2)} ms; lost ${lost}, reordered streams ${reordered}`);
console.log(`  bare node:http replaying the same timeline: p50 ${f(med(bare, 'p50'), 2)} ms, p99 ${f(med(bare, 'p99'), 2)} ms`);
console.log(`  CPU of this process while the events flowed (service: turn + fan-out + subscribers; bare: replay + subscribers): service ${f(median(service.map((t) => t.cpuMs)), 1)} ms, bare ${f(median(bare.map((t) => t.cpuMs)), 1)} ms`);
console.log(`  service / bare: p50 ${f(ratio50, 2)}×, p99 ${f(ratio99, 2)}× — target p99 ≤ ${TARGET}×, nothing lost or reordered`);
console.log(loadLine());
const pass = ratio99 <= TARGET && lost === 0 && reordered === 0;
console.log(`verdict: ${pass ? 'PASS' : 'FAIL'} p99 ${f(med(service, 'p99'), 2)} ms vs bare ${f(med(bare, 'p99'), 2)} ms = ${f(ratio99, 2)}× (target ≤ ${TARGET}×), p50 ${f(ratio50, 2)}×, lost ${lost}, reordered ${reordered}`);
process.exitCode = pass ? 0 : 1;
