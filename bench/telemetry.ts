/**
 * Telemetry cost (`npm run bench:telemetry`): one turn of 20 tool rounds (3 no-op calls each,
 * instant in-process model, no HTTP) run through
 * - `bare`: the loop's runTurn and the model client as they are;
 * - `off`: the same wrapped as the service wraps them with tracing off (src/services.ts:
 *   traceRunTurn without a tracer, instrumentModel with metrics and no tracer);
 * - `on`: wrapped with tracing on (SDK, in-memory exporter, every span recorded), for reference.
 * The three run interleaved, in rotating order, so machine noise and GC hit them alike; medians of
 * ms per turn, and the median of the paired ratios (each run against the bare run of the same
 * round). Target: off/bare ≤ 1.05 (tracing off costs nothing measurable).
 */
import { performance } from 'node:perf_hooks';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { z } from 'zod';
import { loadConfig } from '../src/config.js';
import { runTurn } from '../src/runtime/loop.js';
import { defineWorkerTool, textResult } from '../src/runtime/tool.js';
import type { ModelPort } from '../src/model/port.js';
import { ServiceMetrics } from '../src/telemetry/metrics.js';
import { instrumentModel } from '../src/telemetry/model-telemetry.js';
import { startTracing, type Tracing } from '../src/telemetry/tracing.js';
import { newTurnTrace } from '../src/telemetry/trace-context.js';
import { traceRunTurn } from '../src/telemetry/turn-spans.js';
import { createInProcessModel } from '../test/support/in-process-model.js';
import { functionCall, message } from '../test/support/scripted-responses-server.js';

const ROUNDS = 20;
const RUNS = Number(process.env.BENCH_RUNS ?? 150);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const read = defineWorkerTool({ name: 'noop_read', description: 'no-op', schema: z.object({ path: z.string() }), executionMode: 'parallel', isReadOnly: true, describeActivity: (p) => `Reading ${p.path}`, execute: async () => textResult('ok') });
const write = defineWorkerTool({ name: 'noop_write', description: 'no-op', schema: z.object({ path: z.string() }), executionMode: 'sequential', describeActivity: (p) => `Writing ${p.path}`, execute: async () => textResult('ok') });

const model = (): ModelPort =>
  createInProcessModel((_req, i) =>
    i < ROUNDS
      ? { output: [functionCall('noop_read', { path: `a${i}` }), functionCall('noop_read', { path: `b${i}` }), functionCall('noop_write', { path: `c${i}` })] }
      : { output: [message('done')] },
  );

const silentLog = { error: () => undefined };
const trace = newTurnTrace();
const config = loadConfig({ DATA_DIR: ':memory:' });

type Variant = (m: ModelPort) => { run: typeof runTurn<unknown>; model: ModelPort };
const bare: Variant = (m) => ({ run: runTurn, model: m });
const wrapped = (tracing: Tracing | undefined, metrics: ServiceMetrics): Variant => (m) => ({
  run: traceRunTurn(runTurn, { tracing, traceOf: () => trace }),
  model: instrumentModel(m, { metrics, tracing, log: silentLog }),
});

async function oneTurn(variant: Variant): Promise<number> {
  const { run, model: m } = variant(model());
  const t0 = performance.now();
  const result = await run({ turnId: 'bench', model: m, modelName: 'bench', input: [{ type: 'message', role: 'user', content: 'go' }], tools: [read, write], maxSteps: ROUNDS + 1, signal: new AbortController().signal, emit: () => undefined, turnContext: { agentId: 'bench' } });
  const ms = performance.now() - t0;
  if (result.status !== 'completed' || result.steps !== ROUNDS + 1) throw new Error(`bench turn ended ${result.status} after ${result.steps} steps`);
  return ms;
}

const exporter = new InMemorySpanExporter();
const variants: Record<'bare' | 'off' | 'on', Variant> = {
  bare,
  off: wrapped(undefined, new ServiceMetrics(() => ({ queued: 0, running: 0 }))),
  on: wrapped(startTracing(config, { exporter }), new ServiceMetrics(() => ({ queued: 0, running: 0 }))),
};
const times: Record<string, number[]> = { bare: [], off: [], on: [] };
for (let i = 0; i < 15; i++) for (const v of Object.values(variants)) await oneTurn(v); // warm-up
const entries = Object.entries(variants);
for (let i = 0; i < RUNS; i++) {
  // Rotate the order so garbage left by one variant is not always collected during the same other one.
  for (let k = 0; k < entries.length; k++) {
    const [name, v] = entries[(i + k) % entries.length];
    times[name].push(await oneTurn(v));
  }
  exporter.reset();
}
const [b, off, on] = [median(times.bare), median(times.off), median(times.on)];
// Paired: each off run against the bare run of the same round (measured moments apart), so load
// from other processes on the machine, which drifts over seconds, cancels out.
const ratio = median(times.off.map((t, i) => t / times.bare[i]));
const onRatio = median(times.on.map((t, i) => t / times.bare[i]));
console.log(`turn of ${ROUNDS} tool rounds (3 calls each), median of ${RUNS}: bare ${b.toFixed(2)} ms, tracing off ${off.toFixed(2)} ms, tracing on ${on.toFixed(2)} ms`);
console.log(`median paired ratio off/bare ${ratio.toFixed(3)} (target ≤ 1.05), on/bare ${onRatio.toFixed(3)} (for reference)`);
console.log(`verdict: ${ratio <= 1.05 ? 'PASS' : 'FAIL'} tracing off/bare ${ratio.toFixed(3)} ≤ 1.05 (bare ${b.toFixed(2)} ms, off ${off.toFixed(2)} ms, on ${on.toFixed(2)} ms per turn)`);
