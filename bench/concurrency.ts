/**
 * Many turns at once (`npm run bench:concurrency`): 500 turns streamed concurrently, each of 3
 * noop rounds and a text answer, through the real service (bench/lib/bench-service.ts,
 * MAX_CONCURRENT_TURNS=500) running in a process of its own (bench/lib/service-process.ts), as in
 * production, against the scripted Responses server in this process. All 500 clients
 * `POST /v1/turns` with `Accept: text/event-stream` at once (bench/lib/sse-subscriber.ts) and read
 * their streams to the end.
 *
 * Checked and printed: lost or reordered events (every stream must carry 1, 2, 3… up to the
 * stored last seq, ending with turn.completed), the service process's RSS growth across the run
 * after GC (a warm-up run first, so lazily built caches are not counted), time from the POST to
 * its `turn.started` (p50/p99), turns per second, and what bounds them: the service's event-loop
 * utilization and CPU time over the wall time (one event loop, so one core), and the same for
 * this process (clients and model). The same load runs once before as a warm-up; its connections
 * stay open (keep-alive, all 500 kept free between runs) for the measured run, as a client's
 * connection pool would keep them: a burst of 500 new connections on a busy event loop waits in
 * the accept queue, which measures the kernel and libuv, not the service.
 * Targets: 0 lost or reordered, RSS growth ≤ 50 MB, time to turn.started p99 ≤ 1 s. Prints the
 * load average; ends with `verdict: PASS|FAIL <figures>`. `BENCH_TURNS` (default 500) sets the
 * turns.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startScriptedResponsesServer } from '../test/support/scripted-responses-server.js';
import { noopRounds } from './lib/raw-loop.js';
import { startServiceProcess } from './lib/service-process.js';
import { subscribe } from './lib/sse-subscriber.js';
import { cpuMs, f, loadLine, percentile } from './lib/stats.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 500);
const ROUNDS = 3;
const RSS_MB = 50;
const STARTED_P99_MS = 1000;

const model = await startScriptedResponsesServer();
const svc = await startServiceProcess(model.baseURL, { MAX_CONCURRENT_TURNS: String(TURNS) });
const agent = new http.Agent({ keepAlive: true, maxSockets: TURNS + 10, maxFreeSockets: TURNS + 10 });

interface Run { wallMs: number; service: { elu: number; cpuMs: number }; cpuMs: number; elu: number; started: number[]; lost: number; reordered: number; unfinished: number }

async function run(turns: number): Promise<Run> {
  for (let i = 0; i < turns * (ROUNDS + 1); i++) model.push(noopRounds(ROUNDS));
  await svc.mark();
  const elu0 = performance.eventLoopUtilization();
  const c0 = cpuMs();
  const t0 = performance.now();
  const subs = Array.from({ length: turns }, (_, i) => ({ sub: subscribe(`${svc.url}/v1/turns`, agent, { input: `turn ${i}`, max_steps: ROUNDS + 1 }), postedAt: performance.now() }));
  await Promise.all(subs.map((s) => s.sub.done));
  const wallMs = performance.now() - t0;
  const cpu = cpuMs() - c0;
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const service = await svc.measure();
  let lost = 0;
  let reordered = 0;
  let unfinished = 0;
  const started: number[] = [];
  const stored = await svc.lastSeqs(subs.map(({ sub }) => String(sub.headers?.['x-turn-id'] ?? '')));
  subs.forEach(({ sub, postedAt }, i) => {
    if (sub.order.some((seq, k) => seq !== k + 1)) reordered++;
    lost += Math.max(0, stored[i] - sub.order.length);
    if (sub.lastType !== 'turn.completed' || stored[i] === 0) unfinished++;
    const first = sub.received.get(1);
    if (first !== undefined) started.push(first - postedAt);
  });
  const ends = new Map<string, number>();
  for (const { sub } of subs) {
    if (sub.lastType === 'turn.completed') continue;
    const err = sub.lastType === 'turn.failed' ? (JSON.parse(sub.lastData ?? '{}') as { error?: { code?: string; message?: string } }).error : undefined;
    const code = err ? ` ${err.code} (${err.message?.slice(0, 200)})` : '';
    ends.set(`${sub.lastType}${code}`, (ends.get(`${sub.lastType}${code}`) ?? 0) + 1);
  }
  if (ends.size) console.log(`  streams not ending turn.completed, by last event: ${[...ends].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const errors = [...new Set(subs.map((s) => s.sub.error).filter(Boolean))];
  if (errors.length) console.log(`  client errors: ${errors.join('; ')}`);
  // Entries are order-independent: any a failed turn left unused serve the next run.
  return { wallMs, service, cpuMs: cpu, elu, started, lost, reordered, unfinished };
}

console.log(loadLine());
// Warm-up: the same load once (JIT, lazily built caches, and the connections: clients keep theirs
// alive, as a gateway's pool does, and so does the SDK towards the model).
await run(TURNS);
await sleep(500);
const rss0 = await svc.rssAfterGc();
const r = await run(TURNS);
await sleep(500); // let the runners release their turns
const rss1 = await svc.rssAfterGc();
agent.destroy();
await svc.close();
await model.close();

const growth = rss1 - rss0;
const p50 = percentile(r.started, 50);
const p99 = percentile(r.started, 99);
const perSec = TURNS / (r.wallMs / 1000);
const busy = (x: { elu: number; cpuMs: number }) => `event loop busy ${f(x.elu * 100, 0)}%, CPU ${f((x.cpuMs / r.wallMs) * 100, 0)}% of one core`;
console.log(`${TURNS} concurrent streaming turns of ${ROUNDS} rounds (service in its own process; clients and scripted model in this one):`);
console.log(`  ${f(r.wallMs / 1000, 2)} s → ${f(perSec, 1)} turns/s; lost events ${r.lost}, reordered streams ${r.reordered}, unfinished turns ${r.unfinished}`);
console.log(`  POST → turn.started p50 ${f(p50, 0)} ms, p99 ${f(p99, 0)} ms`);
console.log(`  service RSS after GC ${f(rss0, 1)} MB before, ${f(rss1, 1)} MB after: growth ${f(growth, 1)} MB`);
const bound = r.service.elu > 0.9 ? "the service's one event loop (one core)" : r.elu > 0.9 ? "this process's clients and scripted model (one core), not the service" : 'not CPU-bound (waiting on I/O or the machine)';
console.log(`  bound: ${bound} — service ${busy(r.service)}; clients + model ${busy({ elu: r.elu, cpuMs: r.cpuMs })}`);
console.log(loadLine());
const pass = r.lost === 0 && r.reordered === 0 && r.unfinished === 0 && growth <= RSS_MB && p99 <= STARTED_P99_MS;
console.log(`verdict: ${pass ? 'PASS' : 'FAIL'} lost ${r.lost}, reordered ${r.reordered}, unfinished ${r.unfinished}, RSS growth ${f(growth, 1)} MB (≤ ${RSS_MB}), turn.started p99 ${f(p99, 0)} ms (≤ ${STARTED_P99_MS}), ${f(perSec, 1)} turns/s`);
process.exitCode = pass ? 0 : 1;
