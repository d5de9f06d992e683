/**
 * A command never gets a file descriptor the service inherited from whatever launched it. The
 * repro: the service is started with fd 200 open (without close-on-exec, as after a shell's
 * `exec 200<>file`) on a host file only its owner may read (0600), then a real turn's `command`
 * lists its descriptors and those of every process in the sandbox (bwrap's own included), reads
 * fd 200 and writes into it. The command must see no fd 200 anywhere, read nothing and change
 * nothing.
 *
 * The service runs as a separate process (src/main.ts) with a scripted model: as this test's user
 * (root here and in CI: bwrap then runs as the sandbox user), as a non-root user when this test is
 * root (bwrap runs as that user), and with COMPUTER_SANDBOX=none (no isolation is promised there,
 * but the command's own descriptors are closed all the same).
 */
import { chmodSync, chownSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { freePort, spawnService, waitHealthy, type Child } from '../e2e/support/child.js';
import { readSse } from '../e2e/support/sse-client.js';

const isRoot = process.getuid?.() === 0;
const FD = 200;
const SECRET = 'host-secret-only-the-owner-may-read\n';

/** Lists its own descriptors (and, in a sandbox, those of every process there), then uses fd 200. */
function probe(everyProcess: boolean): string {
  const others = everyProcess ? 'for p in /proc/[0-9]*; do echo "== $p"; ls -la "$p/fd" 2>&1; done; ' : '';
  return `echo "== self"; ls -la /proc/self/fd; ${others}cat <&${FD}; echo written-from-sandbox >&${FD}; echo end-of-probe`;
}

interface Variant {
  name: string;
  /** Run the service as this host user (this test must be root). */
  as?: { uid: number; gid: number };
  env?: Record<string, string>;
  /** List every process's descriptors (only inside the sandbox: unsandboxed that is the host's). */
  everyProcess: boolean;
}

const variants: Variant[] = [
  { name: `sandboxed, service as ${isRoot ? 'root (bwrap as the sandbox user)' : 'this non-root user'}`, everyProcess: true },
  ...(isRoot ? [{ name: 'sandboxed, service as a non-root user (bwrap as that user)', as: { uid: 65534, gid: 65534 }, everyProcess: true }] : []),
  { name: 'COMPUTER_SANDBOX=none', env: { COMPUTER_SANDBOX: 'none' }, everyProcess: false },
];

describe.each(variants)('a descriptor the service inherited ($name)', (v) => {
  let model: ScriptedResponsesServer;
  let child: Child | undefined;
  let scratch: string;
  let hostFile: string;
  let url: string;
  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'inherited-fds-'));
    // Searchable (not readable) by a non-root service, which needs to reach DATA_DIR below it.
    chmodSync(scratch, 0o711);
    const dataDir = path.join(scratch, 'data');
    hostFile = path.join(scratch, 'hostfile');
    writeFileSync(hostFile, SECRET, { mode: 0o600 });
    mkdirSync(dataDir);
    if (v.as) chownSync(dataDir, v.as.uid, v.as.gid);
    // Opened here, read-write; the service gets it as fd 200 (dup2'ed: not close-on-exec).
    const fd = openSync(hostFile, 'r+');
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    try {
      child = spawnService(
        { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'silent', MODEL: 'scripted-model', MODEL_MAX_RETRIES: '0', OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'test-key', HOME: dataDir, ...v.env },
        v.as,
        { inheritFds: { [FD]: fd } },
      );
    } finally {
      closeSync(fd);
    }
    await waitHealthy(url, child, 60_000);
  }, 90_000);
  afterAll(async () => {
    child?.proc.kill('SIGKILL');
    await child?.exited;
    await model?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('never reaches the command: not listed in any process, not readable, not writable', async () => {
    // The setup holds: the service itself has fd 200 open on the host file.
    expect(readlinkSync(`/proc/${child!.proc.pid}/fd/${FD}`)).toBe(hostFile);

    model.push(
      { output: [functionCall('command', { command: probe(v.everyProcess) })] },
      { output: [message('done')] },
    );
    const r = await readSse(`${url}/v1/turns`, { method: 'POST', body: { input: 'go', agent_id: 'fd-prober', tools: ['computer'] }, timeoutMs: 30_000 });
    expect(r.status).toBe(200);
    const completed = r.events.filter((e) => e.event === 'tool.completed').map((e) => e.json);
    expect(completed.map((c) => c.name)).toEqual(['command']);
    expect(r.events[r.events.length - 1].json.type).toBe('turn.completed');
    const output = String(completed[0].output);

    // The listings ran…
    expect(output).toContain('== self');
    expect(output).toMatch(/ 0 -> \/dev\/null/);
    if (v.everyProcess) expect(output).toContain('== /proc/1\n');
    expect(output).toContain('end-of-probe');
    // …and no process showed fd 200 or anything pointing at the host file.
    expect(output).not.toMatch(new RegExp(` ${FD} -> `));
    expect(output).not.toContain(hostFile);
    // Reading and writing fd 200 failed, and the host file is unchanged.
    expect(output).not.toContain(SECRET.trim());
    expect(output.match(new RegExp(`${FD}: Bad file descriptor`, 'g'))?.length).toBe(2);
    expect(readFileSync(hostFile, 'utf8')).toBe(SECRET);
  });
});
