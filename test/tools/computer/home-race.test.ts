/**
 * Check-then-use races on the agent home: a process swaps a folder for a symlink to another
 * agent's home (renameat2 RENAME_EXCHANGE in a loop) while the service resolves and uses paths.
 * - Through `command` (another turn of the same agent): the home lock (home-lock.ts) makes file
 *   tools wait until the command has ended, so nothing ever runs during the swaps.
 * - Outside the lock (a process the lock does not cover): the O_NOFOLLOW walk and the descriptor
 *   check (home-fs.ts) refuse every swapped path; nothing is read or written outside the home.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyWorkerAgentTool } from '../../../src/runtime/tool.js';
import { acquireHomeLock, HOME_WAIT_NOTICE_MS, homeLockBusy } from '../../../src/tools/computer/home-lock.js';
import { call, computerTools, tempDir, turnContext } from './support.js';

let cleanup: () => Promise<void>;
let tools: AnyWorkerAgentTool[];
let home: string;
let other: string;

beforeAll(async () => {
  const t = await tempDir('home-race-');
  cleanup = t.cleanup;
  const ctx = turnContext(t.dir, { agentId: 'agent-a' });
  home = ctx.agentHome;
  ({ tools } = await computerTools(ctx));
  other = path.join(t.dir, 'agents', 'agent-b', 'home');
  mkdirSync(other, { recursive: true });
  writeFileSync(path.join(other, 'secret.txt'), 'OTHER-AGENT-SECRET\n');
  mkdirSync(home, { recursive: true });
});
afterAll(() => cleanup());

/** Python that exchanges `a` and `b` (in the cwd) as fast as it can for `seconds`. */
const FLIP = (a: string, b: string, seconds: number) => `import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
end = time.time() + ${seconds}
while time.time() < end:
    libc.renameat2(-100, b"${a}", -100, b"${b}", 2)  # RENAME_EXCHANGE
`;

/** Start a flipper on the host (not through `command`, so the home lock does not cover it). */
function hostFlipper(a: string, b: string, seconds: number): { proc: ChildProcess; done: Promise<void> } {
  const proc = spawn('python3', ['-c', FLIP(a, b, seconds)], { cwd: home, stdio: 'ignore' });
  const done = new Promise<void>((r) => proc.once('exit', () => r()));
  return { proc, done };
}

function prepareSwap(name: string): void {
  mkdirSync(path.join(home, name), { recursive: true });
  writeFileSync(path.join(home, name, 'secret.txt'), 'decoy\n');
  const link = path.join(home, `${name}.l`);
  if (!existsSync(link)) spawnSyncLink(other, link);
}

function spawnSyncLink(target: string, link: string): void {
  // fs.symlinkSync would do; kept explicit for readability of the setup.
  symlinkSync(target, link);
}

describe('symlink swaps while the service uses a path', () => {
  it('file tools wait for a running command of the same agent, so its swaps never redirect them', async () => {
    const cmd = call(tools, 'command', {
      command: `mkdir -p d && echo decoy > d/secret.txt && ln -sfn ${other} d.l && python3 -c '${FLIP('d', 'd.l', 2)}'; echo flipped`,
      timeout: 20,
    });
    let cmdDone = 0;
    void cmd.then(() => (cmdDone = Date.now()));
    await new Promise((r) => setTimeout(r, 300));
    const finished: number[] = [];
    const outputs: string[] = [];
    const attempts = Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? call(tools, 'write_file', { path: 'd/pwned.txt', content: 'agent-a\n' }) : call(tools, 'read_file', { path: 'd/secret.txt' })).then((r) => {
        finished.push(Date.now());
        outputs.push(r.output);
      }),
    );
    await Promise.all([cmd, ...attempts]);
    expect((await cmd).output).toMatch(/^exit_code=0[\s\S]*flipped/);
    for (const t of finished) expect(t).toBeGreaterThanOrEqual(cmdDone - 5);
    expect(outputs.some((o) => o.includes('OTHER-AGENT-SECRET'))).toBe(false);
    expect(existsSync(path.join(other, 'pwned.txt'))).toBe(false);
  }, 30_000);

  it('a queued command waits for shared holders, and file tools queued behind it wait for the command', async () => {
    const key = realpathSync(home);
    const releaseReader = await acquireHomeLock(key, 'shared');
    const order: string[] = [];
    const cmd = call(tools, 'command', { command: 'echo ran' }).then(() => order.push('command'));
    await new Promise((r) => setTimeout(r, 50));
    const read = call(tools, 'ls', {}).then(() => order.push('ls'));
    await new Promise((r) => setTimeout(r, 200));
    expect(order).toEqual([]);
    releaseReader();
    await Promise.all([cmd, read]);
    expect(order).toEqual(['command', 'ls']);
  });

  it('a waiter whose call is cancelled leaves the queue with a clear error; the lock is gone when idle', async () => {
    const key = realpathSync(home);
    const releaseCommand = await acquireHomeLock(key, 'exclusive');
    const ac = new AbortController();
    const waiting = acquireHomeLock(key, 'shared', ac.signal);
    setTimeout(() => ac.abort(), 50);
    await expect(waiting).rejects.toThrow(/gave up waiting for the agent home: a command of this agent is still running/);
    const turn = new AbortController();
    const read = call(tools, 'read_file', { path: 'nothing.txt' }, { signal: turn.signal });
    setTimeout(() => turn.abort(), 50);
    expect((await read).isError).toBe(true);
    releaseCommand();
    expect(homeLockBusy(key)).toBe(false);
    expect((await call(tools, 'read_file', { path: 'nothing.txt' })).output).toMatch(/^not found/);
  });

  it('a waiter kept more than a second says what it waits for, once; one granted sooner says nothing', async () => {
    const key = realpathSync(home);
    const notices: Record<string, { message: string; data: unknown }[]> = { cmd: [], behind: [], quick: [] };
    const releaseReader = await acquireHomeLock(key, 'shared');
    // A command waits for a file operation; a read queued behind the command waits for it to run.
    const cmd = acquireHomeLock(key, 'exclusive', { holder: 'a command of turn T1', emit: (n) => notices.cmd.push(n) });
    const behind = acquireHomeLock(key, 'shared', { emit: (n) => notices.behind.push(n) });
    await new Promise((r) => setTimeout(r, HOME_WAIT_NOTICE_MS + 300));
    expect(notices.cmd).toEqual([{ message: "waiting for the agent's home: file operations of this agent are using it; this call goes on when it ends", data: { kind: 'waiting_for_home', holder: null } }]);
    expect(notices.behind).toEqual([{ message: "waiting for the agent's home: a command of turn T1 is about to run; this call goes on when it ends", data: { kind: 'waiting_for_home', holder: 'a command of turn T1' } }]);
    releaseReader();
    const releaseCmd = await cmd;
    // While the command holds it, a new waiter names it as running; one granted within the second says nothing.
    const late = acquireHomeLock(key, 'shared', { emit: (n) => notices.quick.push(n) });
    await new Promise((r) => setTimeout(r, HOME_WAIT_NOTICE_MS + 300));
    expect(notices.quick.map((n) => n.message)).toEqual(["waiting for the agent's home: a command of turn T1 is running; this call goes on when it ends"]);
    releaseCmd();
    (await behind)();
    (await late)();
    const quick: unknown[] = [];
    const releaseCmd2 = await acquireHomeLock(key, 'exclusive', { holder: 'x' });
    const soon = acquireHomeLock(key, 'shared', { emit: (n) => quick.push(n) });
    setTimeout(releaseCmd2, 100);
    (await soon)();
    await new Promise((r) => setTimeout(r, HOME_WAIT_NOTICE_MS + 200));
    expect(quick).toEqual([]);
    expect(notices.cmd).toHaveLength(1);
    expect(homeLockBusy(key)).toBe(false);
  });

  it('outside the lock, write_file/read_file/edit_file/ls refuse swapped paths and never leave the home', async () => {
    prepareSwap('e');
    const flip = hostFlipper('e', 'e.l', 2.5);
    const end = Date.now() + 2300;
    let attempts = 0;
    let leaked = 0;
    try {
      while (Date.now() < end) {
        attempts++;
        const w = await call(tools, 'write_file', { path: 'e/pwned.txt', content: 'agent-a\n' });
        const r = await call(tools, 'read_file', { path: 'e/secret.txt' });
        const ed = await call(tools, 'edit_file', { path: 'e/secret.txt', old_string: 'SECRET', new_string: 'PWNED' });
        const l = await call(tools, 'ls', { path: 'e' });
        for (const o of [w.output, r.output, ed.output, l.output]) if (/OTHER-AGENT|PWNED/.test(o) && !o.startsWith('Error')) leaked++;
      }
    } finally {
      flip.proc.kill('SIGKILL');
      await flip.done;
    }
    expect(attempts).toBeGreaterThan(10);
    expect(leaked).toBe(0);
    expect(readdirSync(other)).toEqual(['secret.txt']);
    expect(readFileSync(path.join(other, 'secret.txt'), 'utf8')).toBe('OTHER-AGENT-SECRET\n');
  }, 30_000);

  it('outside the lock, the .command-logs copy of a long output never lands outside the home', async () => {
    mkdirSync(path.join(home, '.command-logs'), { recursive: true });
    spawnSyncLink(other, path.join(home, 'cl.l'));
    const flip = hostFlipper('.command-logs', 'cl.l', 4);
    try {
      for (let i = 0; i < 15; i++) {
        const r = await call(tools, 'command', { command: 'echo PAYLOAD; head -c 60000 /dev/zero | tr "\\0" x' });
        expect(r.output).toMatch(/^exit_code=0/);
      }
    } finally {
      flip.proc.kill('SIGKILL');
      await flip.done;
    }
    expect(readdirSync(other)).toEqual(['secret.txt']);
  }, 30_000);
});
