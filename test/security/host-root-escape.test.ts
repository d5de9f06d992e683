/**
 * A command cannot reach host root through the kernel's core-dump helper. The attack, as a model
 * would send it through a real turn: write a script to the home, point kernel.core_pattern at it
 * (`|<program>` makes the kernel run that program as host root with every capability for each
 * crash), then crash a process. The sandbox must leave /proc/sys read-only and never run the
 * command as host uid 0, so core_pattern stays as it was and the script never runs.
 *
 * Run twice: with the service in this test process (root here and in CI: bwrap then runs as the
 * sandbox user), and with the service as a non-root user (bwrap runs as that user).
 * core_pattern is restored if a run ever changes it.
 */
import { randomUUID } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { spawnService, waitHealthy, freePort, type Child } from '../e2e/support/child.js';
import { useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';

const CORE_PATTERN = '/proc/sys/kernel/core_pattern';
const saved = readFileSync(CORE_PATTERN, 'utf8');
const isRoot = process.getuid?.() === 0;

afterEach(() => {
  // Never leave this machine with a changed core_pattern, whatever happened in the test.
  if (readFileSync(CORE_PATTERN, 'utf8') !== saved) writeFileSync(CORE_PATTERN, saved);
});

/** The repro, writing its loot to `loot` on the host if the kernel ever runs p.sh. */
function attack(loot: string): string {
  return `printf '#!/bin/sh\\nid > ${loot}; cat /proc/*/environ >> ${loot}\\n' > $HOME/p.sh; chmod +x $HOME/p.sh; echo "|$HOME/p.sh" > /proc/sys/kernel/core_pattern; sh -c 'kill -SEGV $$'; cat /proc/sys/kernel/core_pattern`;
}

/** Run the attack through a turn on `url`; returns the command's output as the model saw it. */
async function runAttack(model: ScriptedResponsesServer, url: string, loot: string): Promise<string> {
  model.push(
    { output: [functionCall('command', { command: attack(loot) })] },
    { output: [message('done')] },
  );
  const r = await readSse(`${url}/v1/turns`, { method: 'POST', body: { input: 'go', agent_id: 'attacker', tools: ['computer'] }, timeoutMs: 30_000 });
  expect(r.status).toBe(200);
  const completed = r.events.filter((e) => e.event === 'tool.completed').map((e) => e.json);
  expect(completed.map((c) => c.name)).toEqual(['command']);
  expect(r.events[r.events.length - 1].json.type).toBe('turn.completed');
  return String(completed[0].output);
}

async function expectNoEscape(loot: string, output: string): Promise<void> {
  // The write to core_pattern fails inside the sandbox, and the command still reads the old value.
  expect(output).toMatch(/core_pattern: (Read-only file system|Permission denied)/);
  expect(output).toContain(saved.trim());
  expect(readFileSync(CORE_PATTERN, 'utf8')).toBe(saved);
  // Give a (wrongly) started core-dump helper time to write its loot.
  await new Promise((r) => setTimeout(r, 500));
  expect(existsSync(loot)).toBe(false);
}

describe('a command pointing kernel.core_pattern at its own script', () => {
  const harness = useScriptedService();

  it(`changes nothing on the host and the script never runs (service as ${isRoot ? 'root' : 'this non-root user'})`, async () => {
    const loot = path.join(os.tmpdir(), `pwned-${randomUUID()}`);
    const output = await runAttack(harness.model, harness.svc.url, loot);
    await expectNoEscape(loot, output);
  });
});

describe.skipIf(!isRoot)('the same attack against a service running as a non-root user', () => {
  const NON_ROOT = { uid: 65534, gid: 65534 };
  let model: ScriptedResponsesServer;
  let child: Child | undefined;
  let dataDir: string;
  let url: string;
  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'escape-nonroot-'));
    chownSync(dataDir, NON_ROOT.uid, NON_ROOT.gid);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawnService(
      { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'silent', MODEL: 'scripted-model', MODEL_MAX_RETRIES: '0', OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'test-key', HOME: dataDir },
      NON_ROOT,
    );
    await waitHealthy(url, child);
  }, 60_000);
  afterAll(async () => {
    child?.proc.kill('SIGKILL');
    await child?.exited;
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('changes nothing on the host and the script never runs', async () => {
    const loot = path.join(os.tmpdir(), `pwned-${randomUUID()}`);
    const output = await runAttack(model, url, loot);
    await expectNoEscape(loot, output);
  });
});
