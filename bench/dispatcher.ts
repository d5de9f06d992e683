/**
 * Which HTTP stack carries the model traffic (`npm run bench:dispatcher`). The `openai` SDK calls
 * the global `fetch` (Node's bundled undici 6.x). Importing the npm `undici` package (7.x: the web
 * tools and webhooks use it for their guarded Agents) installs an undici 7 Agent as the GLOBAL
 * dispatcher when none exists yet, so in the service the SDK's requests run on Node's fetch over
 * that Agent. Three variants of the raw SDK loop (bench/lib/raw-loop.ts, 51 requests a turn)
 * against the scripted Responses server, each in its own process (the import's effect is
 * process-wide), alternating, several times:
 * - `bundled`: npm undici never imported (Node's fetch over Node's own dispatcher);
 * - `global`: npm undici imported first, as in the service (Node's fetch over undici 7's Agent);
 * - `npmfetch`: the SDK given npm undici's own `fetch` (undici 7 end to end);
 * - `model`: the SDK given the service's model fetch (src/model/model-fetch.ts: undici 7's
 *   `request`, the response body left a Node stream, which the SDK iterates directly).
 * Prints the median CPU per turn of each and the load average; informational (no target), ends
 * with `verdict: PASS` when every variant ran. README "Performance" says what was decided.
 */
import { execFileSync } from 'node:child_process';
import OpenAI from 'openai';
import { startScriptedResponsesServer } from '../test/support/scripted-responses-server.js';
import { noopRounds, rawTurn } from './lib/raw-loop.js';
import { cpuMs, f, loadLine, median } from './lib/stats.js';

const VARIANTS = ['bundled', 'global', 'npmfetch', 'model'] as const;
const variant = process.argv[2];

if (variant) {
  let fetchImpl: typeof fetch | undefined;
  if (variant !== 'bundled') {
    const undici = await import('undici');
    if (variant === 'npmfetch') fetchImpl = undici.fetch as unknown as typeof fetch;
    if (variant === 'model') fetchImpl = (await import('../src/model/model-fetch.js')).modelFetch;
  }
  const server = await startScriptedResponsesServer();
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'bench-key', maxRetries: 0, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const turn = async () => {
    for (let j = 0; j <= 50; j++) server.push(noopRounds(50));
    await rawTurn(client);
  };
  for (let i = 0; i < 5; i++) await turn();
  const xs: number[] = [];
  for (let i = 0; i < 11; i++) {
    const c0 = cpuMs();
    await turn();
    xs.push(cpuMs() - c0);
  }
  await server.close();
  console.log(JSON.stringify({ variant, cpuMs: median(xs) }));
} else {
  console.log(loadLine());
  const runs: Record<string, number[]> = {};
  for (let pass = 0; pass < Number(process.env.BENCH_PASSES ?? 3); pass++) {
    for (const v of VARIANTS) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, v], { encoding: 'utf8' });
      const r = JSON.parse(out.trim().split('\n').at(-1)!) as { cpuMs: number };
      (runs[v] ??= []).push(r.cpuMs);
    }
  }
  const m = Object.fromEntries(VARIANTS.map((v) => [v, median(runs[v])]));
  for (const v of VARIANTS) console.log(`  ${v.padEnd(8)} median CPU ${f(m[v], 1)} ms per 51-request turn (${f(m[v] / m.bundled, 2)}× bundled)`);
  console.log(loadLine());
  console.log(`verdict: PASS global ${f(m.global / m.bundled, 2)}×, npmfetch ${f(m.npmfetch / m.bundled, 2)}×, model ${f(m.model / m.bundled, 2)}× the bundled stack (informational)`);
}
