/**
 * `npm run demo` (scripts/demo.ts): one real turn against the bundled scripted model, printing
 * labels and the answer — and an `unavailable` line only for a family the demo asked for; with
 * `--serve`, the service kept up against an echoing scripted model. Both take the user's
 * environment (AUTH_TOKENS, WEBHOOK_*, …) and force the scripted model and a temporary DATA_DIR.
 * A demo that cannot start (its port taken) says so in one line, exits 2 and leaves no folder.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { freePort, holdPorts, portIsFree, ROOT } from '../e2e/support/child.js';
import { startReceiver } from '../webhooks/receiver.js';

/** The demo (`args`) in a process of its own with `env` (PATH and HOME added): its output so far, and its exit. */
function startDemo(args: string[], env: Record<string, string>) {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/demo.ts'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const demo = { proc, out: '', exited: new Promise<number | null>((resolve) => proc.on('exit', resolve)) };
  proc.stdout.on('data', (c) => (demo.out += c));
  proc.stderr.on('data', (c) => (demo.out += c));
  return demo;
}

/** Wait (≤ 60 s) until a `--serve` demo says it is up, or has exited. */
async function served(demo: ReturnType<typeof startDemo>): Promise<void> {
  for (let i = 0; i < 300 && !demo.out.includes('Ctrl-C stops it.') && demo.proc.exitCode === null; i++) await new Promise((r) => setTimeout(r, 200));
}

it('prints the labels and the answer, and no unavailable line for families it did not ask for', { timeout: 90_000 }, async () => {
  // AUTH_TOKENS applies to the demo too: its own request sends the first token.
  const demo = startDemo([], { AUTH_TOKENS: 'demo-test-token-0123456789abcdef, second-token-0123456789abcdef' });
  const code = await demo.exited;
  const { out } = demo;
  expect(code, out).toBe(0);
  expect(out).toMatch(/▶ turn \S+ started — tools: .*todo/);
  expect(out).toMatch(/^answer: I planned the work with todo/m);
  const unavailable = [...out.matchAll(/family (\S+) unavailable/g)].map((m) => m[1]);
  expect(unavailable.filter((f) => f !== 'todo' && f !== 'computer')).toEqual([]);
  expect(out).not.toContain('not enabled for this turn');
});

it('--serve keeps the service up on PORT against an echoing scripted model until SIGTERM, then removes its data', { timeout: 90_000 }, async () => {
  const port = await freePort();
  const demo = startDemo(['--serve'], { PORT: String(port) });
  const { proc, exited } = demo;
  try {
    await served(demo);
    expect(demo.out).toContain(`service: http://127.0.0.1:${port}`);
    const base = `http://127.0.0.1:${port}`;
    for (const input of ['hello', 'and again']) {
      const res = await fetch(`${base}/v1/turns?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
      const turn = await res.json();
      expect(res.status).toBe(200);
      expect(turn).toMatchObject({ status: 'completed', output_text: `(scripted model, no LLM) You said: ${input}` });
    }
  } finally {
    proc.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  const dataDir = /data: (\S+) \(removed on exit\)/.exec(demo.out)?.[1];
  expect(dataDir).toBeTruthy();
  expect(existsSync(dataDir!)).toBe(false);
});

/** A `--serve` demo that has answered one turn, its data folder there. */
async function servingWithData(): Promise<{ demo: ReturnType<typeof startDemo>; dataDir: string }> {
  const port = await freePort();
  const demo = startDemo(['--serve'], { PORT: String(port) });
  await served(demo);
  const res = await fetch(`http://127.0.0.1:${port}/v1/turns?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hello' }) });
  expect(res.status).toBe(200);
  const dataDir = /data: (\S+) \(removed on exit\)/.exec(demo.out)?.[1];
  expect(dataDir && existsSync(dataDir)).toBe(true);
  return { demo, dataDir: dataDir! };
}

it('--serve removes its data also when the stop signal comes twice (Ctrl-C twice, or relayed again by tsx)', { timeout: 90_000 }, async () => {
  const { demo, dataDir } = await servingWithData();
  demo.proc.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 5));
  demo.proc.kill('SIGINT');
  expect(await demo.exited).toBe(0);
  expect(existsSync(dataDir)).toBe(false);
});

it('--serve removes its data on SIGHUP (its terminal closed), once or twice', { timeout: 120_000 }, async () => {
  for (const times of [1, 2]) {
    const { demo, dataDir } = await servingWithData();
    for (let i = 0; i < times; i++) {
      demo.proc.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await demo.exited, demo.out).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  }
});

it('stopped with Ctrl-C before its turn ended: stops the service, removes its temporary data and exits 130', { timeout: 90_000 }, async () => {
  const demo = startDemo([], {});
  for (let i = 0; i < 300 && !/data: \S+/.test(demo.out) && demo.proc.exitCode === null; i++) await new Promise((r) => setTimeout(r, 20));
  const dataDir = /data: (\S+)/.exec(demo.out)?.[1];
  expect(dataDir && existsSync(dataDir), demo.out).toBe(true);
  demo.proc.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 5));
  demo.proc.kill('SIGINT'); // Ctrl-C twice, or relayed again by tsx
  expect(await demo.exited, demo.out).toBe(130);
  expect(demo.out).toContain('demo stopped before its turn ended');
  expect(demo.out).not.toContain('demo failed');
  expect(existsSync(dataDir!)).toBe(false);
});

it('stopped with Ctrl-C while its service is still starting (one-shot and --serve): removes its temporary data', { timeout: 120_000 }, async () => {
  for (const args of [[], ['--serve']]) {
    // Its own TMPDIR, to see the data folder appear (os.tmpdir() reads TMPDIR).
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'demo-signal-'));
    try {
      const demo = startDemo(args, { TMPDIR: tmp, PORT: String(await freePort()) });
      // (tsx keeps its cache there too.)
      const data = () => readdirSync(tmp).filter((f) => f.startsWith('turn-service-demo-'));
      for (let i = 0; i < 6000 && data().length === 0 && demo.proc.exitCode === null; i++) await new Promise((r) => setTimeout(r, 5));
      expect(data(), demo.out).toHaveLength(1);
      expect(demo.out).not.toContain('service:'); // still starting
      demo.proc.kill('SIGINT');
      expect(await demo.exited, demo.out).toBe(args.length ? 0 : 130);
      expect(demo.out).not.toContain('demo failed');
      expect(data()).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
});

it('--serve takes the user environment (AUTH_TOKENS, WEBHOOK_*) but keeps its scripted model and temporary data', { timeout: 90_000 }, async () => {
  const port = await freePort();
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const receiver = await startReceiver(secret);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'demo-env-'));
  const userDataDir = path.join(scratch, 'user-data');
  const token = 'demo-test-token-0123456789abcdef';
  const demo = startDemo(['--serve'], {
    PORT: String(port),
    AUTH_TOKENS: token, WEBHOOK_SECRET: secret, WEBHOOK_URL: receiver.url, WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    // Forced over by the demo: its scripted model and its temporary data folder.
    DATA_DIR: userDataDir, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', MODEL: 'gpt-nothing', MODEL_API: 'chat',
    DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
  });
  const { proc, exited } = demo;
  try {
    await served(demo);
    expect(demo.out).toContain(`service: http://127.0.0.1:${port}`);
    // The printed example is quoted for any shell and carries the bearer token header.
    expect(demo.out).toContain(`try:  curl -s 'http://127.0.0.1:${port}/v1/turns?wait=true' -H "Authorization: Bearer $TOKEN"`);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/v1/turns?limit=1`)).status).toBe(401);
    const res = await fetch(`${base}/v1/turns?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ input: 'hello', webhook: { url: receiver.url, events: ['turn.completed'] } }),
    });
    expect(res.status).toBe(200);
    const turn = await res.json();
    expect(turn).toMatchObject({ status: 'completed', output_text: '(scripted model, no LLM) You said: hello' });
    // The turn's webhook is accepted (WEBHOOK_SECRET is set) and its delivery is signed with it.
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(receiver.received[0].verified).toMatchObject({ type: 'turn.completed', data: { turn: { id: turn.id } } });
    expect(existsSync(userDataDir)).toBe(false);
  } finally {
    proc.kill('SIGTERM');
    await receiver.close();
  }
  expect(await exited).toBe(0);
  rmSync(scratch, { recursive: true, force: true });
});

it('--serve on a port another process holds says so in one line suggesting a port that is free, exits 2 and removes its temporary folder', { timeout: 90_000 }, async () => {
  // The port and the one after it are taken: the suggestion is a port checked to be free.
  const held = await holdPorts(2);
  const port = held.port;
  // The demo's temporary folders go under TMPDIR: a scratch one shows what it leaves behind.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'demo-busy-'));
  try {
    const demo = startDemo(['--serve'], { PORT: String(port), TMPDIR: tmp });
    expect(await demo.exited, demo.out).toBe(2);
    const m = /^demo --serve: port (\d+) on 127\.0\.0\.1 is busy \(another process listens on it\): stop that process, or choose another port, e\.g\. PORT=(\d+) bash scripts\/setup npm run demo -- --serve \(free now\)\n$/.exec(demo.out);
    expect(m, demo.out).not.toBeNull();
    expect(Number(m![1])).toBe(port);
    expect([port, port + 1]).not.toContain(Number(m![2]));
    expect(await portIsFree(Number(m![2]))).toBe(true);
    // (tsx keeps its cache there too.)
    expect(readdirSync(tmp).filter((f) => f.startsWith('turn-service-demo-'))).toEqual([]);
  } finally {
    await held.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
