/**
 * Runtime benchmarks (`npm run bench`):
 * 1. overhead per tool round: `runTurn` with no-op tools and an instant in-process scripted model
 *    (no HTTP), each round = one response with 3 function calls (2 parallel, 1 sequential);
 *    median ms per round over several turns. Target ≤ 0.5 ms.
 * 2. argument validations per second for a typical schema (`validateToolArguments`, JSON parse +
 *    zod). Target ≥ 100k/s.
 */
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { validateToolArguments } from '../src/runtime/arguments.js';
import { runTurn } from '../src/runtime/loop.js';
import { defineWorkerTool, textResult } from '../src/runtime/tool.js';
import { createInProcessModel } from '../test/support/in-process-model.js';
import { functionCall, message } from '../test/support/scripted-responses-server.js';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const noopRead = defineWorkerTool({
  name: 'noop_read', description: 'no-op', schema: z.object({ path: z.string(), limit: z.number().int().optional() }),
  executionMode: 'parallel', isReadOnly: true, describeActivity: (p) => `Reading ${p.path}`, execute: async () => textResult('ok'),
});
const noopWrite = defineWorkerTool({
  name: 'noop_write', description: 'no-op', schema: z.object({ path: z.string(), content: z.string() }),
  executionMode: 'sequential', describeActivity: (p) => `Writing ${p.path}`, execute: async () => textResult('ok'),
});

async function turnWithRounds(rounds: number): Promise<number> {
  const model = createInProcessModel((_req, i) =>
    i < rounds
      ? { output: [
          functionCall('noop_read', { path: `a${i}.txt` }), functionCall('noop_read', { path: `b${i}.txt`, limit: 10 }),
          functionCall('noop_write', { path: `c${i}.txt`, content: 'x' }),
        ] }
      : { output: [message('done')] },
  );
  const t0 = performance.now();
  const result = await runTurn({
    turnId: 'bench', model, modelName: 'bench', input: [{ type: 'message', role: 'user', content: 'go' }],
    tools: [noopRead, noopWrite], maxSteps: rounds + 1, signal: new AbortController().signal,
    emit: () => undefined, turnContext: {},
  });
  const ms = performance.now() - t0;
  if (result.status !== 'completed' || result.steps !== rounds + 1) throw new Error(`bench turn ended ${result.status} after ${result.steps}`);
  return ms;
}

async function benchRounds(): Promise<{ perRoundMs: number; perRoundNoModelMs: number }> {
  const ROUNDS = 20;
  for (let i = 0; i < 20; i++) await turnWithRounds(ROUNDS); // warm-up
  const perRound: number[] = [];
  for (let i = 0; i < 40; i++) perRound.push((await turnWithRounds(ROUNDS)) / ROUNDS);
  // The scripted model's own cost (building + yielding events), to subtract.
  const model = createInProcessModel(() => ({ output: [functionCall('noop_read', { path: 'a' }), functionCall('noop_read', { path: 'b' }), functionCall('noop_write', { path: 'c', content: 'x' })] }));
  const modelCost: number[] = [];
  for (let i = 0; i < 40; i++) {
    const t0 = performance.now();
    for (let r = 0; r < ROUNDS; r++) for await (const _ of model.stream({ model: 'm', input: [], tools: [], toolChoice: 'auto' }, new AbortController().signal)) void _;
    modelCost.push((performance.now() - t0) / ROUNDS);
  }
  return { perRoundMs: median(perRound), perRoundNoModelMs: median(perRound) - median(modelCost) };
}

function benchValidation(): number {
  const tool = defineWorkerTool({
    name: 'read_file', description: 'Read a file',
    schema: z.object({
      path: z.string().min(1), offset: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(2000).optional(),
      encoding: z.enum(['utf8', 'base64']).default('utf8'),
    }),
    executionMode: 'parallel', isReadOnly: true, describeActivity: () => null, execute: async () => textResult('ok'),
  });
  const raw = '{"path":"src/runtime/loop.ts","offset":10,"limit":200,"encoding":"utf8"}';
  for (let i = 0; i < 50_000; i++) validateToolArguments(tool, raw);
  const rates: number[] = [];
  for (let run = 0; run < 5; run++) {
    const N = 200_000;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) if (!validateToolArguments(tool, raw).ok) throw new Error('invalid');
    rates.push(N / ((performance.now() - t0) / 1000));
  }
  return median(rates);
}

const rounds = await benchRounds();
const rate = benchValidation();
console.log(`runtime overhead per tool round (3 no-op calls, instant in-process model): median ${rounds.perRoundMs.toFixed(3)} ms (≈${rounds.perRoundNoModelMs.toFixed(3)} ms excluding the scripted model's own event building) — target ≤ 0.5 ms`);
console.log(`argument validations per second (typical 4-field schema): median ${Math.round(rate).toLocaleString('en-US')}/s — target ≥ 100,000/s`);
