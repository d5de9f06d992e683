/** Run the real service entry point (src/main.ts, TypeScript loaded by tsx) as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface Child {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export interface SpawnServiceOptions {
  /**
   * Extra descriptors the service inherits, as `{ [fd in the service]: fd open in this process }`
   * (fd ≥ 3): the service gets them without close-on-exec, as from a shell's `exec 200<>file`.
   */
  inheritFds?: Record<number, number>;
  /** The script to run instead of src/main.ts (a path from the repository root), e.g. one calling main() with overrides. */
  entry?: string;
}

/** `as`: run the service as this host uid/gid (the caller must be root), e.g. to test a non-root service. */
export function spawnService(env: Record<string, string>, as?: { uid: number; gid: number }, opts: SpawnServiceOptions = {}): Child {
  let out = '';
  const stdio: (number | 'ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe'];
  for (const [target, fd] of Object.entries(opts.inheritFds ?? {})) {
    const at = Number(target);
    if (!Number.isInteger(at) || at < 3) throw new Error(`spawnService: inheritFds takes descriptors >= 3, got ${target}`);
    // No holes: Node skips them when it reads the array, which would move `fd` down to a lower slot.
    while (stdio.length < at) stdio.push('ignore');
    stdio[at] = fd;
  }
  // One process (node with the tsx loader), so a kill reaches the service itself.
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve(ROOT, opts.entry ?? 'src/main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio,
    ...(as ?? {}),
  });
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, output: () => out, exited };
}

/** Wait until GET url/healthz answers 200. */
export async function waitHealthy(url: string, child: Child, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.proc.exitCode !== null) throw new Error(`service exited early:\n${child.output()}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service not healthy after ${ms} ms:\n${child.output()}`);
}

/** A free loopback port (bind 0, read, close). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * Listen on `count` consecutive loopback ports (tries other ranges while one of them is taken):
 * `port` is the first, `close()` lets all go.
 */
export async function holdPorts(count: number): Promise<{ port: number; close: () => Promise<void> }> {
  const net = await import('node:net');
  const listen = (port: number) =>
    new Promise<import('node:net').Server | undefined>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(undefined));
      s.listen(port, '127.0.0.1', () => resolve(s));
    });
  const closeAll = (servers: import('node:net').Server[]) => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined);
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await listen(0);
    if (!first) continue;
    const port = (first.address() as { port: number }).port;
    const held = [first];
    while (held.length < count && port + held.length <= 65535) {
      const next = await listen(port + held.length);
      if (!next) break;
      held.push(next);
    }
    if (held.length === count) return { port, close: () => closeAll(held) };
    await closeAll(held);
  }
  throw new Error(`holdPorts: found no ${count} consecutive free loopback ports`);
}

/** True when `port` on 127.0.0.1 can be listened on now. */
export async function portIsFree(port: number): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
