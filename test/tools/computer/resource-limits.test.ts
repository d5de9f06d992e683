/**
 * Resource limits of commands: per-process data memory (RLIMIT_DATA, COMPUTER_MEMORY_LIMIT_MB),
 * the size of the sandbox's RAM-backed /tmp (COMPUTER_TMP_MAX_MB), and the per-home disk budget
 * (COMPUTER_HOME_MAX_MB: measured after each command; write tools refused while over).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyWorkerAgentTool } from '../../../src/runtime/tool.js';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { computerStartupWarnings } from '../../../src/tools/computer/index.js';
import { call, computerTools, tempDir, turnContext } from './support.js';

let cleanup: () => Promise<void>;
let dir: string;
let defaults: AnyWorkerAgentTool[];
let tight: AnyWorkerAgentTool[];

beforeAll(async () => {
  const t = await tempDir('limits-');
  cleanup = t.cleanup;
  dir = t.dir;
  ({ tools: defaults } = await computerTools(turnContext(dir, { agentId: 'roomy' })));
  ({ tools: tight } = await computerTools(turnContext(dir, {
    agentId: 'tight',
    env: { COMPUTER_MEMORY_LIMIT_MB: '256', COMPUTER_TMP_MAX_MB: '8', COMPUTER_HOME_MAX_MB: '5' },
  })));
});
afterAll(() => cleanup());

describe('command resource limits', () => {
  it('the default memory limit still lets python3 and node run and allocate a few hundred MB', async () => {
    const r = await call(defaults, 'command', {
      command: `ulimit -d; python3 -c 'b = bytearray(300 * 1024**2); print("py", len(b) >> 20)'; node -e 'const b = Buffer.alloc(300 * 2 ** 20, 1); console.log("node", b.length >> 20)'`,
    });
    expect(r.output).toBe(`exit_code=0 duration=${r.output.match(/duration=([\d.]+)s/)![1]}s\n${2048 * 1024}\npy 300\nnode 300\n`);
  });

  it('COMPUTER_MEMORY_LIMIT_MB stops a process allocating more', async () => {
    const r = await call(tight, 'command', { command: `python3 -c 'b = bytearray(400 * 1024**2)' 2>&1 | tail -1; ulimit -d` });
    expect(r.output).toContain('MemoryError');
    expect(r.output).toContain(`${256 * 1024}\n`);
  });

  it('COMPUTER_TMP_MAX_MB bounds the private /tmp', async () => {
    const r = await call(tight, 'command', { command: 'df -k --output=size /tmp /var/tmp | tail -2 | tr -s " \\n" " "; { head -c 20M /dev/zero > /tmp/big; } 2>&1; echo rc=$?' }); // stderr into stdout: the message comes before rc, in one stream
    expect(r.output).toMatch(/ 8192 8192 /);
    expect(r.output).toMatch(/No space left on device[\s\S]*rc=1/);
  });

  it('nothing else RAM-backed is writable: the sandbox root, /dev and the masked /etc folders are read-only; /dev/shm is bounded like /tmp', async () => {
    const r = await call(tight, 'command', {
      command: [
        'for f in /f /opt2 /dev/f /etc/ssh/f /etc/ssl/private/f; do { : > $f; } 2>/dev/null && echo "wrote $f" || echo "refused $f"; done',
        'mkdir /newdir 2>/dev/null && echo "made /newdir" || echo "refused /newdir"',
        'echo ok > /dev/null && echo "dev null ok"',
        'df -k --output=size /dev/shm | tail -1 | tr -d " "',
        '{ head -c 20M /dev/zero > /dev/shm/big; } 2>&1; echo rc=$?',
        'echo home > h.txt && cat h.txt',
      ].join('; '),
    });
    expect(r.output).toContain('refused /f\nrefused /opt2\nrefused /dev/f\nrefused /etc/ssh/f\nrefused /etc/ssl/private/f\nrefused /newdir\ndev null ok\n8192\n');
    expect(r.output).toMatch(/No space left on device[\s\S]*rc=1\nhome\n/);
  });

  it('COMPUTER_HOME_MAX_MB: over budget after a command, write tools are refused until files are deleted', async () => {
    const fill = await call(tight, 'command', { command: 'head -c 8M /dev/urandom > fill.bin; echo done' });
    expect(fill.output).toMatch(/\[the home is over its disk budget: 8\.\d MiB used of 5 MiB \(COMPUTER_HOME_MAX_MB\)/);
    expect((fill.details as { homeUsedBytes: number }).homeUsedBytes).toBeGreaterThan(8 * 1024 * 1024);
    const w = await call(tight, 'write_file', { path: 'a.txt', content: 'x' });
    expect(w.output).toMatch(/^Error: .*over its disk budget \(8\.\d MiB used of 5 MiB/);
    const e = await call(tight, 'apply_patch', { patch: '*** Begin Patch\n*** Add File: b.txt\n+x\n*** End Patch' });
    expect(e.output).toMatch(/^Error: .*over its disk budget/);
    const rm = await call(tight, 'command', { command: 'rm fill.bin' });
    expect(rm.output).not.toContain('disk budget');
    const again = await call(tight, 'write_file', { path: 'a.txt', content: 'x' });
    expect(again.isError).toBe(false);
  });

  it('COMPUTER_HOME_MAX_MB: a command that keeps writing files is killed while it runs once the home passes the budget', async () => {
    const { tools } = await computerTools(turnContext(dir, { agentId: 'writer', env: { COMPUTER_HOME_MAX_MB: '5' } }));
    // 300 files of 1 MiB, one every 30 ms (~9 s): many files, each under the per-file limit.
    const r = await call(tools, 'command', { command: 'for i in $(seq 300); do head -c 1048576 /dev/zero > f$i; sleep 0.03; done; echo FINISHED', timeout: 60 });
    expect(r.output).toMatch(/\[command killed: the home passed its disk budget while it ran \(\d+\.\d MiB used of 5 MiB, COMPUTER_HOME_MAX_MB\)/);
    expect(r.output).not.toContain('FINISHED');
    const files = /\nfiles=(\d+)\n/.exec((await call(tools, 'command', { command: 'echo files=$(ls | grep -c "^f")' })).output)?.[1];
    expect(Number(files)).toBeLessThan(150);
    expect(Number(files)).toBeGreaterThan(4);
  }, 60_000);

  it('with a bubblewrap that lacks --size, commands still run and the start-up log says /tmp is unbounded', async () => {
    const oldBwrap = path.join(dir, 'old-bwrap');
    // bwrap gets its options on fd 3 (--args): look there for --size, then hand them on.
    await writeFile(oldBwrap, '#!/bin/bash\nt=$(mktemp)\ncat <&3 > "$t"\nif grep -qa -e --size "$t"; then rm -f "$t"; echo "bwrap: Unknown option --size" >&2; exit 1; fi\nexec 3< "$t"\nrm -f "$t"\nexec /usr/bin/bwrap "$@"\n');
    await chmod(oldBwrap, 0o755);
    const warnings = await computerStartupWarnings(loadConfig({ DATA_DIR: dir }), oldBwrap);
    expect(warnings).toEqual([expect.stringMatching(/does not support --size .*COMPUTER_TMP_MAX_MB is not applied/)]);
    const { tools } = await computerTools(turnContext(dir, { agentId: 'old' }), oldBwrap);
    const r = await call(tools, 'command', { command: 'echo works' });
    expect(r.output).toMatch(/^exit_code=0 .*\nworks\n$/);
  });
});
