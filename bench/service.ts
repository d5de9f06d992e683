/**
 * The whole service against a raw SDK loop (`npm run bench:service`).
 *
 * One scripted Responses server on loopback (test/support/scripted-responses-server.ts), started
 * here, answers both sides: R rounds of one `noop` function call each, then the text `done`.
 * - raw: a hand-written `openai` Responses loop (bench/lib/raw-loop.ts) — the floor;
 * - service: the real service in this process (bench/lib/bench-service.ts: HTTP, admission, the
 *   turn queue and runner, checkpoints and the event log in SQLite WAL, the runtime, the Responses
 *   adapter) with a client reading the turn's SSE stream to its end (every event parsed; a
 *   `node:http` client, bench/lib/service-turn.ts says why).
 * R = 50 and R = 150, interleaved (raw and service alternate, the order flips every pass) after a
 * warm-up, so machine noise hits both alike; medians of wall time and of this process's CPU time
 * per turn (everything runs in this one process: scripted server, service and clients). The
 * ratios are medians over passes of service / raw within a pass (the pair ran back to back).
 *
 * Targets: service / raw ≤ 1.2× in wall and CPU time at both R, and the R = 150 ratio ≤ the
 * R = 50 ratio + 0.05 (the service's cost per round does not grow with the turn).
 * Prints the load average; ends with `verdict: PASS|FAIL <figures>`.
 * `BENCH_PASSES` (default 9) sets the measured passes, `BENCH_WARMUP` (default 10) the unmeasured
 * passes before them.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startScriptedResponsesServer } from '../test/support/scripted-responses-server.js';
import { startBenchService } from './lib/bench-service.js';
import { noopRounds, rawClient, rawTurn } from './lib/raw-loop.js';
import { serviceTurn } from './lib/service-turn.js';
import { cpuMs, f, loadLine, median } from './lib/stats.js';

const ROUNDS = [50, 150] as const;
const PASSES = Number(process.env.BENCH_PASSES ?? 9);
/** Unmeasured passes first: a turn's time still fell by a third over the first ten passes (JIT, heap sizing). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const TARGET = 1.2;
const GROWTH = 0.05;

const server = await startScriptedResponsesServer();
const svc = await startBenchService(server.baseURL);
const client = rawClient(server.baseURL);

type Kind = 'raw' | 'service';
interface Sample { wallMs: number; cpuMs: number }
const samples: Record<string, Sample[]> = {};

async function once(kind: Kind, rounds: number): Promise<Sample> {
  for (let i = 0; i <= rounds; i++) server.push(noopRounds(rounds));
  const c0 = cpuMs();
  const t0 = performance.now();
  if (kind === 'raw') await rawTurn(client);
  else await serviceTurn(svc.url, rounds);
  const s = { wallMs: performance.now() - t0, cpuMs: cpuMs() - c0 };
  if (server.remaining() !== 0) throw new Error(`${kind} turn left ${server.remaining()} script entries`);
  // The scripted server keeps every request it received (tests read them): a turn's 51 bodies,
  // kept for the whole run, grew the heap by megabytes a pass and slowed every scavenge of both sides.
  server.requests.length = 0;
  await sleep(30); // let the service finish the turn's bookkeeping before the next measurement
  return s;
}

console.log(loadLine());
for (let i = 0; i < WARMUP; i++) for (const r of ROUNDS) for (const k of ['raw', 'service'] as const) await once(k, r);
for (let pass = 0; pass < PASSES; pass++) {
  for (const r of ROUNDS) {
    const order: Kind[] = pass % 2 ? ['raw', 'service'] : ['service', 'raw'];
    for (const k of order) (samples[`${k}/${r}`] ??= []).push(await once(k, r));
  }
}
await svc.close();
await server.close();

const wall = (k: Kind, r: number) => median(samples[`${k}/${r}`].map((s) => s.wallMs));
const cpu = (k: Kind, r: number) => median(samples[`${k}/${r}`].map((s) => s.cpuMs));
/** Median over passes of service / raw within the pass (the two ran back to back: drift cancels). */
const paired = (r: number, k: 'wallMs' | 'cpuMs') => median(samples[`service/${r}`].map((s, i) => s[k] / samples[`raw/${r}`][i][k]));
const ratios = Object.fromEntries(ROUNDS.map((r) => [r, { wall: paired(r, 'wallMs'), cpu: paired(r, 'cpuMs') }]));
console.log(`per turn, medians of ${PASSES} interleaved passes (one process: scripted server, service, clients):`);
for (const r of ROUNDS) {
  console.log(`  R=${r}: raw ${f(wall('raw', r), 1)} ms wall / ${f(cpu('raw', r), 1)} ms CPU; service ${f(wall('service', r), 1)} ms / ${f(cpu('service', r), 1)} ms` +
    ` → ${f(ratios[r].wall, 2)}× wall, ${f(ratios[r].cpu, 2)}× CPU (${f(wall('service', r) / (r + 1), 3)} ms wall per round)`);
}
console.log(loadLine());
const within = ROUNDS.every((r) => ratios[r].wall <= TARGET && ratios[r].cpu <= TARGET);
const flat = ratios[150].wall <= ratios[50].wall + GROWTH && ratios[150].cpu <= ratios[50].cpu + GROWTH;
const pass = within && flat;
console.log(`targets: ≤ ${TARGET}× wall and CPU at R=50 and R=150; R=150 ratio ≤ R=50 ratio + ${GROWTH}`);
console.log(`verdict: ${pass ? 'PASS' : 'FAIL'} R=50 ${f(ratios[50].wall, 2)}× wall ${f(ratios[50].cpu, 2)}× CPU, R=150 ${f(ratios[150].wall, 2)}× wall ${f(ratios[150].cpu, 2)}× CPU (target ≤ ${TARGET}×, growth ≤ +${GROWTH})`);
process.exitCode = pass ? 0 : 1;
