/**
 * Checkpoint cost per round (`npm run bench:checkpoints`): `runTurn` with one no-op tool call per
 * round against an instant in-process scripted model, R = 50 and R = 150 rounds, with and without
 * checkpoints stored in SQLite (a WAL database file in a temporary directory, as the service uses:
 * a mid-round checkpoint before the calls run and one after each round, transcript items appended
 * only). Medians of ms per round over several turns, measured in this one run.
 *
 * Targets: checkpoints add ≤ 0.3 ms per round, and what they add per round at R = 150 is ≤ 1.2 × what
 * they add at R = 50 (the checkpoint cost stays flat as the turn grows; the loop's own cost per round
 * grows with the transcript in stateless mode — the whole transcript is mapped and sent every
 * request — with or without checkpoints, and is printed for reference).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { runTurn } from '../src/runtime/loop.js';
import { defineWorkerTool, textResult } from '../src/runtime/tool.js';
import { initialTurnState } from '../src/runtime/turn-state.js';
import { openDatabase } from '../src/store/database.js';
import { SqliteCheckpointStore } from '../src/store/sqlite-checkpoint-store.js';
import { TurnCheckpointer } from '../src/turns/turn-checkpoints.js';
import { createInProcessModel } from '../test/support/in-process-model.js';
import { functionCall, message } from '../test/support/scripted-responses-server.js';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const noop = defineWorkerTool({
  name: 'noop', description: 'no-op', schema: z.object({ n: z.number().int() }),
  executionMode: 'sequential', describeActivity: (p) => `No-op ${p.n}`, execute: async (p) => textResult(`ok ${p.n}`),
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-checkpoints-'));
const db = openDatabase(dir);
const store = new SqliteCheckpointStore(db);

/** Every checkpoint save's duration, ms, by R (direct measurement). */
const saveMs: Record<number, number[]> = { 50: [], 150: [] };
/** Checkpoint saves per round, by R. */
const savesPerRound: Record<number, number[]> = { 50: [], 150: [] };

/** One turn of `rounds` tool rounds (+ the final answer); ms per round. */
async function turn(rounds: number, checkpoints: boolean): Promise<number> {
  const model = createInProcessModel((_req, i) =>
    i < rounds ? { output: [functionCall('noop', { n: i }, { callId: `call_${i}` })] } : { output: [message('done')] },
  );
  const input = [{ type: 'message' as const, role: 'user' as const, content: 'go' }];
  const id = uuidv7();
  const cp = new TurnCheckpointer(store, id, 0);
  if (checkpoints) await cp.save(initialTurnState(input));
  let saves = 0;
  const t0 = performance.now();
  const result = await runTurn({
    turnId: id, model, modelName: 'bench', input, tools: [noop], maxSteps: rounds + 1,
    signal: new AbortController().signal, emit: () => undefined, turnContext: {},
    ...(checkpoints
      ? {
          checkpoint: async (s, next) => {
            const s0 = performance.now();
            await cp.save(s, next);
            saveMs[rounds]?.push(performance.now() - s0);
            saves++;
          },
        }
      : {}),
  });
  const ms = performance.now() - t0;
  if (checkpoints) savesPerRound[rounds]?.push(saves / rounds);
  if (result.status !== 'completed' || result.steps !== rounds + 1) throw new Error(`bench turn ended ${result.status} after ${result.steps}`);
  return ms / rounds;
}

async function measure(rounds: number, checkpoints: boolean, runs: number): Promise<number> {
  for (let i = 0; i < 3; i++) await turn(rounds, checkpoints); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) xs.push(await turn(rounds, checkpoints));
  return median(xs);
}

// Interleave the variants so machine noise hits them alike.
const results: Record<string, number[]> = { '50/off': [], '50/on': [], '150/off': [], '150/on': [] };
for (let pass = 0; pass < 3; pass++) {
  results['50/off'].push(await measure(50, false, 7));
  results['50/on'].push(await measure(50, true, 7));
  results['150/off'].push(await measure(150, false, 5));
  results['150/on'].push(await measure(150, true, 5));
}
const m = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)]));
db.close();
rmSync(dir, { recursive: true, force: true });

// The added cost is measured directly: the median duration of a checkpoint save × saves per round
// (medians over thousands of saves; the difference of two end-to-end medians is dominated by
// machine noise and GC pauses on a shared machine).
const added50 = median(saveMs[50]) * median(savesPerRound[50]);
const added150 = median(saveMs[150]) * median(savesPerRound[150]);
const growth = added150 / added50;
const loopGrowth = m['150/off'] / m['50/off'];
const f = (x: number) => x.toFixed(3);
console.log(`R=50:  ${f(m['50/off'])} ms/round without checkpoints, ${f(m['50/on'])} ms/round with; checkpoint saves ${f(added50)} ms/round`);
console.log(`R=150: ${f(m['150/off'])} ms/round without checkpoints, ${f(m['150/on'])} ms/round with; checkpoint saves ${f(added150)} ms/round`);
console.log(`checkpoint cost growth per round, R=150 / R=50: ${growth.toFixed(2)}× (the loop alone: ${loopGrowth.toFixed(2)}×) — targets: added ≤ 0.3 ms/round, growth ≤ 1.2×`);
const pass = Math.max(added50, added150) <= 0.3 && growth <= 1.2;
console.log(`verdict: ${pass ? 'PASS' : 'FAIL'} added ${f(added50)}/${f(added150)} ms/round (R=50/R=150), growth ${growth.toFixed(2)}×`);
process.exitCode = pass ? 0 : 1;
