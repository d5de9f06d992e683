/**
 * The sandboxed command runs unprivileged even when the service runs as root (as in CI): a
 * non-zero uid/gid inside, a non-root host user outside (the sandbox user when the service is
 * root), no capabilities, a bounded number of processes, and the agent home shared both ways with
 * the file tools.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_UID } from '../../../src/tools/computer/sandbox/bwrap-args.js';
import { call, processesWithMarker, sandboxUser, useComputerHome, waitFor } from './support.js';

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
    // Outside, the command's files belong to the host user that ran the sandbox: never root.
    const owner = (await stat(path.join(h.home, 'shared/from-cmd.txt'))).uid;
    expect(owner).toBe(process.getuid!() === 0 ? (await sandboxUser()).uid : process.getuid!());
    expect(owner).not.toBe(0);
    await writeFile(path.join(h.home, 'shared/outside.txt'), 'o');
    expect(body((await call(h.tools, 'command', { command: 'echo x >> shared/outside.txt && cat shared/outside.txt' })).output)).toBe('ox\n');
  });

  it('refuses new processes once the command has 1024, and none survive the command', async () => {
    const marker = `nproc-${Math.random().toString(36).slice(2)}`;
    // perl's fork() fails at once with EAGAIN (bash would retry a failed fork for ~15 s); the
    // children sleep, so the count is the number of processes alive together, not a race.
    const script = 'my $n = 0; for (1..1100) { my $p = fork(); last unless defined $p; if ($p == 0) { sleep 60; exit 0 } $n++ } print "started=$n\\n"';
    const r = await call(h.tools, 'command', { command: `perl -e '${script}'; echo done`, env: { MARKER: marker }, timeout: 60 });
    const started = Number(/started=(\d+)/.exec(r.output)?.[1]);
    // 1024 minus the few processes already running (bwrap's init, bash, perl).
    expect(started, r.output).toBeGreaterThan(1010);
    expect(started, r.output).toBeLessThan(1024);
    expect(r.output).toContain('done');
    expect(await waitFor(() => processesWithMarker(marker).length === 0, 3000)).toBe(true);
  }, 90_000);
});
