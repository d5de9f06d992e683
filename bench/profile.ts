/**
 * Where a turn's CPU goes (`npm run bench:profile`): the same two sides as `bench:service` — the
 * whole service in this process and the raw SDK loop, on one scripted Responses server — each run
 * for `PROFILE_TURNS` turns (default 10) of `PROFILE_ROUNDS` no-op rounds (default 150) under V8's
 * sampling CPU profiler (100 µs), after a warm-up of both.
 *
 * Prints, per side: CPU per turn of each thread kind (main thread, V8's GC helper threads…, from
 * /proc/self/task; 10 ms resolution, so a figure per turn is an average over the turns), then
 * the main thread's self time by file and by function (top `PROFILE_TOP`, default 25; the
 * profiler counts time in blocking native calls too). Writes `<side>.cpuprofile` files into
 * `PROFILE_DIR` (default: a new temporary folder; made when missing; open them in Chrome DevTools) and says where.
 * Informational, no verdict: read the ratios with `bench:service`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startScriptedResponsesServer } from '../test/support/scripted-responses-server.js';
import { startBenchService } from './lib/bench-service.js';
import { noopRounds, rawClient, rawTurn } from './lib/raw-loop.js';
import { serviceTurn } from './lib/service-turn.js';
import { loadLine } from './lib/stats.js';

const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 150);
const TURNS = Number(process.env.PROFILE_TURNS ?? 10);
const TOP = Number(process.env.PROFILE_TOP ?? 25);
const DIR = process.env.PROFILE_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'turn-profile-'));
mkdirSync(DIR, { recursive: true }); // a PROFILE_DIR that does not exist yet is made

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** CPU ms used so far by each kind of thread of this process (names without their trailing digits). */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const task of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(name, (out.get(name) ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // utime + stime, USER_HZ = 100
  }
  return out;
}

/** Self time (ms) by key, largest first. */
function selfTimes(p: Profile, key: (n: ProfileNode) => string): [string, number][] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const k = key(byId.get(id)!);
    out.set(k, (out.get(k) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return [...out].sort((a, b) => b[1] - a[1]);
}

const shortUrl = (url: string) => url.replace(/^file:\/\/.*?\/(src|routes|bench|test|node_modules)\//, '$1/').replace(/^node_modules\/((@[^/]+\/)?[^/]+).*/, '$1');
const byFile = (n: ProfileNode) => shortUrl(n.callFrame.url) || n.callFrame.functionName || '(native)';
const byFunction = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const server = await startScriptedResponsesServer();
const svc = await startBenchService(server.baseURL);
const client = rawClient(server.baseURL);
const turn = async (side: 'raw' | 'service') => {
  for (let i = 0; i <= ROUNDS; i++) server.push(noopRounds(ROUNDS));
  if (side === 'raw') await rawTurn(client);
  else await serviceTurn(svc.url, ROUNDS);
  await sleep(20);
};

console.log(loadLine());
for (let i = 0; i < 3; i++) for (const side of ['raw', 'service'] as const) await turn(side);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
for (const side of ['raw', 'service'] as const) {
  const before = threadCpu();
  await session.post('Profiler.start');
  for (let i = 0; i < TURNS; i++) await turn(side);
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
  const after = threadCpu();
  const file = path.join(DIR, `${side}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const threads = [...after].map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / TURNS] as const).filter(([, v]) => v > 0);
  console.log(`\n== ${side}: ${TURNS} turns of ${ROUNDS} rounds; CPU per turn by thread: ${threads.map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ')}`);
  console.log(`   profile: ${file}`);
  const show = (title: string, rows: [string, number][]) => {
    console.log(`   main thread self time per turn, by ${title}:`);
    for (const [k, ms] of rows.slice(0, TOP)) console.log(`   ${(ms / TURNS).toFixed(2).padStart(8)} ms  ${k}`);
  };
  show('file', selfTimes(profile, byFile));
  show('function', selfTimes(profile, byFunction));
}
console.log(loadLine());
await svc.close();
await server.close();
