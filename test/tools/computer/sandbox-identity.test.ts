/**
 * The sandboxed command runs unprivileged even when the service runs as root (as in CI): a
 * non-zero uid/gid, no capabilities, a bounded number of processes, and the agent home shared
 * both ways with the file tools.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_UID } from '../../../src/tools/computer/sandbox/bwrap-args.js';
import { call, processesWithMarker, useComputerHome } from './support.js';

const h = useComputerHome();

const body = (out: string) => out.replace(/^exit_code=\d+ duration=[\d.]+s\n/, '');

describe('sandbox identity', () => {
  it('runs the command as an unprivileged uid/gid with no capabilities', async () => {
    const r = await call(h.tools, 'command', { command: 'id -u; id -g; grep -E "^Cap(Eff|Prm|Bnd):" /proc/self/status' });
    expect(r.isError).toBe(false);
    expect(body(r.output)).toBe(`${SANDBOX_UID}\n${SANDBOX_UID}\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n`);
    expect(SANDBOX_UID).not.toBe(0);
  });

  it('files from write_file are writable by the command and its files are readable by the file tools', async () => {
    await call(h.tools, 'write_file', { path: 'shared/from-tool.txt', content: 'tool\n' });
    const r = await call(h.tools, 'command', { command: 'echo cmd >> shared/from-tool.txt && echo made > shared/from-cmd.txt && mkdir -p shared/sub && echo deep > shared/sub/d.txt && cat shared/from-tool.txt' });
    expect(body(r.output)).toBe('tool\ncmd\n');
    expect((await call(h.tools, 'read_file', { path: 'shared/from-cmd.txt' })).output).toMatch(/^ {5}1\tmade\n/);
    const e = await call(h.tools, 'edit_file', { path: 'shared/sub/d.txt', old_string: 'deep', new_string: 'deeper' });
    expect(e.isError, e.output).toBe(false);
    expect(await readFile(path.join(h.home, 'shared/sub/d.txt'), 'utf8')).toBe('deeper\n');
    // Outside, the command's files belong to the service's own user.
    expect((await stat(path.join(h.home, 'shared/from-cmd.txt'))).uid).toBe(process.getuid!());
    await writeFile(path.join(h.home, 'shared/outside.txt'), 'o');
    expect(body((await call(h.tools, 'command', { command: 'echo x >> shared/outside.txt && cat shared/outside.txt' })).output)).toBe('ox\n');
  });

  it('stops a command starting 1100 background processes near the 1024-process limit', async () => {
    const marker = `nproc-${Math.random().toString(36).slice(2)}`;
    const r = await call(h.tools, 'command', {
      // bash exits when a fork fails, so the loop runs in a subshell that records its progress with
      // builtins only; whatever is still running dies with the sandbox's pid namespace.
      command: '(for i in $(seq 1100); do sleep 2 & echo $i > /tmp/n; done) 2>/dev/null; read n < /tmp/n; echo started=$n; echo done',
      env: { MARKER: marker },
      timeout: 60,
    });
    const started = Number(/started=(\d+)/.exec(r.output)?.[1]);
    expect(started, r.output).toBeGreaterThan(900);
    expect(started, r.output).toBeLessThan(1024);
    expect(r.output).toContain('done');
    for (let i = 0; i < 30 && processesWithMarker(marker).length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(processesWithMarker(marker)).toEqual([]);
  }, 90_000);
});
