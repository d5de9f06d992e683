/**
 * The computer family creator: which tools a turn gets, and why not when it gets fewer.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleTools, MAIN_TURN_FAMILIES } from '../../../src/assembly/assemble.js';
import { buildProviderTools } from '../../../src/runtime/provider-tools.js';
import { computerFamily, computerSandboxWarning, computerStartupWarnings, createComputerFamily } from '../../../src/tools/computer/index.js';
import { todoFamily } from '../../../src/tools/todo/index.js';
import type { CommandDetails } from '../../../src/tools/computer/index.js';
import { call, tempDir, turnContext } from './support.js';

const FILE_TOOLS = ['read_file', 'write_file', 'edit_file', 'apply_patch', 'ls', 'find', 'grep'];

let dataDir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: dataDir, cleanup } = await tempDir());
});
afterAll(() => cleanup());

describe('computer family', () => {
  it('offers command and the file tools when bubblewrap works, with schemas the runtime can send', async () => {
    const r = await computerFamily.create(turnContext(dataDir));
    expect(r.unavailable).toBeUndefined();
    expect(r.tools!.map((t) => t.name)).toEqual(['command', ...FILE_TOOLS]);
    const provider = buildProviderTools(r.tools!);
    expect(provider).toHaveLength(8);
    const byName = new Map(r.tools!.map((t) => [t.name, t]));
    expect(byName.get('command')!.executionMode).toBe('sequential');
    expect(byName.get('command')!.isDestructive).toBe(true);
    expect(byName.get('apply_patch')!.isDestructive).toBe(true);
    for (const n of ['read_file', 'ls', 'find', 'grep']) {
      expect(byName.get(n)!.executionMode).toBe('parallel');
      expect(byName.get(n)!.isReadOnly).toBe(true);
    }
    for (const n of ['write_file', 'edit_file']) expect(byName.get(n)!.executionMode).toBe('sequential');
  });

  it('gives command a runtime timeout longer than its own maximum', async () => {
    const r = await computerFamily.create(turnContext(dataDir, { env: { COMPUTER_MAX_TIMEOUT_S: '900' } }));
    const cmd = r.tools!.find((t) => t.name === 'command')!;
    expect(cmd.timeoutMs).toBeGreaterThan(900_000);
  });

  it('withholds command and says why when bubblewrap cannot start, keeping the file tools', async () => {
    const family = createComputerFamily({ bwrapPath: `/nonexistent/bwrap-${randomUUID()}` });
    const r = await family.create(turnContext(dataDir));
    expect(r.tools!.map((t) => t.name)).toEqual(FILE_TOOLS);
    expect(r.unavailable).toMatch(/^command is not offered: bubblewrap is not installed .*COMPUTER_SANDBOX=none/);
    const assembled = await assembleTools(turnContext(dataDir), [family]);
    expect(assembled.unavailable).toEqual([{ family: 'computer', reason: r.unavailable }]);
  });

  it.skipIf(process.getuid?.() !== 0)('as root, withholds command without the sandbox user and says how to create it', async () => {
    const name = `nosuchuser${randomUUID().slice(0, 8)}`;
    const r = await computerFamily.create(turnContext(dataDir, { env: { COMPUTER_SANDBOX_USER: name } }));
    expect(r.tools!.map((t) => t.name)).toEqual(FILE_TOOLS);
    expect(r.unavailable).toBe(`command is not offered: the service runs as root and the sandbox user "${name}" (COMPUTER_SANDBOX_USER) does not exist; create it (useradd --system --user-group --no-create-home --shell /usr/sbin/nologin ${name}) or run the service as a non-root user`);
    const root = await computerFamily.create(turnContext(dataDir, { env: { COMPUTER_SANDBOX_USER: 'root' } }));
    expect(root.unavailable).toMatch(/^command is not offered: COMPUTER_SANDBOX_USER "root" is root \(uid 0, gid 0\)/);
  });

  it('with COMPUTER_SANDBOX=none runs commands unsandboxed but still with a scrubbed environment, and warns', async () => {
    const ctx = turnContext(dataDir, { env: { COMPUTER_SANDBOX: 'none' } });
    const family = createComputerFamily({ bwrapPath: `/nonexistent/bwrap-${randomUUID()}` });
    const r = await family.create(ctx);
    expect(r.unavailable).toBeUndefined();
    const secret = `sk-${randomUUID()}`;
    process.env.OPENAI_API_KEY = secret;
    try {
      await writeFile(path.join(dataDir, 'outside.txt'), 'VISIBLE-WITHOUT-SANDBOX');
      const out = await call(r.tools!, 'command', { command: `env; pwd; cat ${JSON.stringify(path.join(dataDir, 'outside.txt'))}` });
      expect(out.output).toContain('VISIBLE-WITHOUT-SANDBOX');
      expect(out.output).toMatch(/^exit_code=0 /);
      expect(out.output).not.toContain(secret);
      expect(out.output).toContain(ctx.agentHome);
      expect((out.details as CommandDetails).sandboxed).toBe(false);
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
    expect(computerSandboxWarning(ctx.config)).toMatch(/^WARNING: .*WITHOUT A SANDBOX/);
    expect(computerSandboxWarning(turnContext(dataDir).config)).toBeNull();
    expect(await computerStartupWarnings(ctx.config)).toEqual([computerSandboxWarning(ctx.config)]);
  });

  it('warns at start-up when bubblewrap cannot start, and not when it can', async () => {
    const config = turnContext(dataDir).config;
    expect(await computerStartupWarnings(config)).toEqual([]);
    const [w, ...rest] = await computerStartupWarnings(config, `/nonexistent/bwrap-${randomUUID()}`);
    expect(rest).toEqual([]);
    expect(w).toMatch(/^computer family: command is not offered: bubblewrap is not installed/);
  });

  it('is not offered when the turn did not ask for it, nor in workflow task turns', async () => {
    expect(await computerFamily.create(turnContext(dataDir, { families: ['todo'] }))).toEqual({ unavailable: 'not enabled for this turn' });
    const task = { ...turnContext(dataDir), kind: 'workflow_task' as const };
    expect((await computerFamily.create(task)).unavailable).toMatch(/not allowed in workflow task turns/);
  });

  it('is registered in the main-turn assembler right after todo', async () => {
    expect(MAIN_TURN_FAMILIES.slice(0, 2)).toEqual([todoFamily, computerFamily]);
    const assembled = await assembleTools(turnContext(dataDir, { families: ['todo', 'computer'] }), [todoFamily, computerFamily]);
    expect(assembled.tools.map((t) => t.name)).toEqual(['todo', 'command', ...FILE_TOOLS]);
  });
});
