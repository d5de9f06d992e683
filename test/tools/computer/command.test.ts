/**
 * `command` in the real bubblewrap sandbox: real bash, real processes, real sockets.
 */
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDetails } from '../../../src/tools/computer/index.js';
import { call, computerTools, processesWithMarker, turnContext, waitFor, useComputerHome } from './support.js';

const h = useComputerHome();

describe('command in the bubblewrap sandbox', () => {
  it('runs bash -lc in the home and reports exit code and duration first', async () => {
    const r = await call(h.tools, 'command', { command: 'echo hello; pwd; exit 3' });
    expect(r.isError).toBe(false);
    expect(r.output).toMatch(/^exit_code=3 duration=\d+\.\ds\n/);
    expect(r.output).toContain('hello');
    expect(r.output).toContain(h.home);
    expect((r.details as CommandDetails).sandboxed).toBe(true);
  });

  it('keeps stdout and stderr and strips ANSI escapes', async () => {
    const r = await call(h.tools, 'command', { command: "echo out; echo err >&2; printf '\\033[31mred\\033[0m\\n'" });
    expect(r.output).toContain('out');
    expect(r.output).toContain('err');
    expect(r.output).toContain('red');
    expect(r.output).not.toContain('\x1b');
  });

  it('labels the call "Running `…`" then "Ran `…` (exit N, S s)"', async () => {
    const r = await call(h.tools, 'command', { command: 'true' });
    expect(r.startedLabel).toBe('Running `true`');
    expect(r.completedLabel).toMatch(/^Ran `true` \(exit 0, \d+\.\d s\)$/);
  });

  it('shows none of the service environment to the command, only PATH, HOME, LANG, TERM and the call env', async () => {
    const secret = `sk-test-${randomUUID()}`;
    process.env.OPENAI_API_KEY = secret;
    process.env.AUTH_TOKENS = `tok-${secret}`;
    try {
      const r = await call(h.tools, 'command', {
        command: 'env; echo ---; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; echo ---; ls /proc | grep -E "^[0-9]+$" | wc -l',
        env: { GREETING: 'hi' },
      });
      expect(r.output).not.toContain(secret);
      const names = r.output.split('---')[0].trim().split('\n').slice(1).map((l) => l.split('=')[0]).sort();
      expect(names).toEqual(expect.arrayContaining(['GREETING', 'HOME', 'LANG', 'PATH', 'TERM']));
      for (const n of names) expect(['GREETING', 'HOME', 'LANG', 'PATH', 'TERM', 'PWD', 'SHLVL', '_', 'OLDPWD']).toContain(n);
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.AUTH_TOKENS;
    }
  });

  it('sees neither the service files nor the data folder outside the home', async () => {
    const r = await call(h.tools, 'command', { command: `ls ${JSON.stringify(h.dataDir)}; ls ${JSON.stringify(process.cwd())} 2>&1; ls / ` });
    expect(r.output).toContain('agents');
    expect(r.output).toMatch(/No such file or directory/);
    expect(r.output).not.toContain('package.json');
  });

  it('has a private /tmp that does not outlive the command', async () => {
    await call(h.tools, 'command', { command: 'echo x > /tmp/leftover' });
    const r = await call(h.tools, 'command', { command: 'ls /tmp; test -e /tmp/leftover && echo FOUND || echo GONE' });
    expect(r.output).toContain('GONE');
  });

  it('cannot write system folders', async () => {
    const r = await call(h.tools, 'command', { command: 'touch /usr/x 2>&1; touch /etc/x 2>&1; echo done' });
    expect(r.output).toMatch(/Read-only file system/);
  });

  it('applies resource limits (processes, file size) that the command cannot raise', async () => {
    const r = await call(h.tools, 'command', { command: 'ulimit -u; ulimit -f; ulimit -H -u; ulimit -u unlimited 2>&1 || echo REFUSED' });
    const [u, f, hu] = r.output.split('\n').slice(1, 4);
    expect(Number(u)).toBeGreaterThan(0);
    expect(Number(u)).toBeLessThanOrEqual(1024);
    expect(Number(f)).toBe(1024 * 1024);
    expect(hu).toBe(u);
    expect(r.output).toContain('REFUSED');
  });

  it('runs in workdir, a folder inside the home, and refuses one outside', async () => {
    await call(h.tools, 'command', { command: 'mkdir -p sub/dir' });
    const ok = await call(h.tools, 'command', { command: 'pwd', workdir: 'sub/dir' });
    expect(ok.output).toContain(path.join(h.home, 'sub/dir'));
    const bad = await call(h.tools, 'command', { command: 'pwd', workdir: '../..' });
    expect(bad.isError).toBe(true);
    expect(bad.output).toMatch(/^Error: .*outside the agent's home/);
  });

  it('a non-zero exit is a normal result, not a tool error', async () => {
    const r = await call(h.tools, 'command', { command: 'ls /definitely-missing' });
    expect(r.isError).toBe(false);
    expect(r.output).toMatch(/^exit_code=2 /);
  });

  describe('network', () => {
    let server: http.Server;
    let port: number;
    beforeAll(async () => {
      server = http.createServer((_req, res) => res.end('REACHED-THE-HOST'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    const fetchCmd = () =>
      `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n' >&3 && cat <&3 || echo UNREACHABLE`;

    it('cannot reach a server on the host loopback when COMPUTER_NETWORK is off (default)', async () => {
      const r = await call(h.tools, 'command', { command: fetchCmd(), timeout: 10 });
      expect(r.output).toContain('UNREACHABLE');
      expect(r.output).not.toContain('REACHED-THE-HOST');
    });

    it('can reach it when COMPUTER_NETWORK=on', async () => {
      const ctx = turnContext(h.dataDir, { env: { COMPUTER_NETWORK: 'on' } });
      const { tools: netTools } = await computerTools(ctx);
      const r = await call(netTools, 'command', { command: fetchCmd(), timeout: 10 });
      expect(r.output).toContain('REACHED-THE-HOST');
    });
  });

  it('kills the whole process group on timeout and leaves no process behind', async () => {
    const marker = randomUUID();
    const started = Date.now();
    const r = await call(h.tools, 'command', { command: 'sleep 100 & sleep 100', timeout: 2, env: { MARKER: marker } });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.isError).toBe(false);
    expect(r.output).toMatch(/^exit_code=124 duration=\d+\.\ds timed_out=true/);
    expect(r.output).toContain('timed out after 2 s');
    expect(r.completedLabel).toBe('Ran `sleep 100 & sleep 100` (timed out after 2 s)');
    expect(await waitFor(() => processesWithMarker(marker).length === 0, 3000)).toBe(true);
  });

  it('kills background processes when the main command exits', async () => {
    const marker = randomUUID();
    const r = await call(h.tools, 'command', { command: '(sleep 100 &) ; echo started', timeout: 20, env: { MARKER: marker } });
    expect(r.output).toMatch(/^exit_code=0 /);
    expect(await waitFor(() => processesWithMarker(marker).length === 0, 3000)).toBe(true);
  });

  it('stops a running command when the turn is aborted', async () => {
    const marker = randomUUID();
    const ac = new AbortController();
    const pending = call(h.tools, 'command', { command: 'echo begun; sleep 100', timeout: 120, env: { MARKER: marker } }, { signal: ac.signal });
    expect(await waitFor(() => processesWithMarker(marker).some(Boolean), 5000)).toBe(true);
    const t0 = Date.now();
    ac.abort();
    const r = await pending;
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.state).toBe('cancelled');
    expect(r.isError).toBe(true);
    expect(await waitFor(() => processesWithMarker(marker).length === 0, 5000)).toBe(true);
  });

  it('caps 5 MB of output at 50,000 characters (head and tail) and saves the full log in the home', async () => {
    const r = await call(h.tools, 'command', {
      command: 'echo FIRST-LINE; head -c 5000000 /dev/zero | tr "\\0" "x" | fold -w 100; echo; echo LAST-LINE',
      timeout: 60,
    });
    const d = r.details as CommandDetails;
    expect(r.output.length).toBeLessThan(51_000);
    expect(r.output).toContain('FIRST-LINE');
    expect(r.output).toContain('LAST-LINE');
    expect(r.output).toMatch(/\[\.\.\. \d+ characters omitted \(output was \d+ characters\); full output saved to \.command-logs\/.+\.log/);
    expect(d.omittedChars).toBeGreaterThan(4_900_000);
    expect(d.logPath).toMatch(/^\.command-logs\/.+\.log$/);
    const log = await readFile(path.join(h.home, d.logPath!), 'utf8');
    expect(log.startsWith('FIRST-LINE\n')).toBe(true);
    expect(log.trimEnd().endsWith('LAST-LINE')).toBe(true);
    expect(log.length).toBe(d.outputChars);
    expect((await stat(path.join(h.home, d.logPath!))).size).toBeGreaterThan(5_000_000);
    // The head is about 40 % of the kept characters, the tail 60 %.
    const [head, tail] = r.output.split(/\[\.\.\. \d+ characters omitted[^\n]*\]/);
    expect(head.length).toBeGreaterThan(19_000);
    expect(head.length).toBeLessThan(21_000);
    expect(tail.length).toBeGreaterThan(29_000);
    expect(tail.length).toBeLessThan(31_000);
  });
});
