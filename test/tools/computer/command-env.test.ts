/**
 * What a call's `env` can and cannot do: names that change how the shell or the dynamic loader
 * starts are refused with an `Error:` the model can act on, startup files in the home run inside
 * the limits, and the values never appear on any process's command line (which every local user
 * can read), only in the command's environment.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, processesWithMarker, useComputerHome, waitFor } from './support.js';

const h = useComputerHome();

/** Host pids whose /proc/<pid>/cmdline contains `needle`. */
function cmdlinesWith(needle: string): number[] {
  const found: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'latin1').includes(needle)) found.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('command env', () => {
  it.each(['BASH_ENV', 'ENV', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'PATH', 'HOME', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'BASH_FUNC_ls'])('refuses %s with an Error: and runs nothing', async (name) => {
    await call(h.tools, 'write_file', { path: 'be.sh', content: 'echo STARTUP-RAN > ran.txt\n' });
    const r = await call(h.tools, 'command', { command: 'echo MAIN-RAN', env: { [name]: `${h.home}/be.sh` } });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(new RegExp(`^Error: .*env: ${name} cannot be set for a command`));
    expect(r.output).not.toContain('MAIN-RAN');
    expect(existsSync(path.join(h.home, 'ran.txt'))).toBe(false);
  });

  it('runs the home startup files inside the limits (a profile cannot lift them)', async () => {
    await call(h.tools, 'write_file', { path: '.bash_profile', content: 'ulimit -S -H -n 100000 2>/dev/null; ulimit -S -H -f unlimited 2>/dev/null; echo "profile n=$(ulimit -n) f=$(ulimit -f)"\n' });
    try {
      const r = await call(h.tools, 'command', { command: 'echo "command n=$(ulimit -n) f=$(ulimit -f)"' });
      expect(r.output).toContain('profile n=4096 f=1048576\ncommand n=4096 f=1048576\n');
    } finally {
      await rm(path.join(h.home, '.bash_profile'));
    }
  });

  it('never puts an env value on a command line while the command runs', async () => {
    const secret = `s3cr3t-${randomUUID()}`;
    const pending = call(h.tools, 'command', { command: 'sleep 3; echo "len=${#TOKEN}"', env: { TOKEN: secret, MARKER: secret } });
    // The value is really in the command's environment (found through /proc/<pid>/environ) …
    expect(await waitFor(() => processesWithMarker(secret).length > 0, 5000)).toBe(true);
    const seen = new Set<number>();
    for (let i = 0; i < 10; i++) {
      for (const pid of cmdlinesWith(secret)) seen.add(pid);
      await new Promise((r) => setTimeout(r, 100));
    }
    // … and on no process's command line (bwrap's included: its options came through fd 3).
    expect([...seen]).toEqual([]);
    const r = await pending;
    expect(r.output).toContain(`len=${secret.length}`);
  });
});
