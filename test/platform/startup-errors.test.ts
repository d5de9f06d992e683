/**
 * Bad configuration stops the real entry point at once with one line naming the variable and
 * the value given, and exit code 2 — never a hang, never `NaN`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { KNOWN_TOOL_NAMES } from '../../src/assembly/tool-names.js';
import { freePort, spawnService, waitHealthy } from '../e2e/support/child.js';

async function refusal(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const child = spawnService({ PORT: '0', DATA_DIR: '/tmp', ...env });
  const code = await child.exited;
  return { code, lines: child.output().trim().split('\n') };
}

// A child process with the tsx loader takes several seconds to start on a busy machine.
const CHILD_MS = 60_000;

it('reports PORT=abc with the value given', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ PORT: 'abc' });
  expect(code).toBe(2);
  expect(lines).toEqual(['refusing to start: PORT=abc: must be an integer from 0 to 65535']);
});

it('fails at once with one line for a DATA_DIR that cannot be created (/proc/nope)', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ DATA_DIR: '/proc/nope' });
  expect(code).toBe(2);
  expect(lines).toEqual([
    "refusing to start: DATA_DIR=/proc/nope: cannot use it as the data folder (ENOENT: no such file or directory, mkdir '/proc/nope')",
  ]);
});

it('refuses an APPROVAL_POLICY naming a tool no family offers, naming it and the known tools', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ APPROVAL_POLICY: 'comand=always' });
  expect(code).toBe(2);
  expect(lines).toEqual([`refusing to start: APPROVAL_POLICY=comand=always: "comand" is not a tool name; known tools: ${KNOWN_TOOL_NAMES.join(', ')}`]);
  expect(lines[0]).toContain(', command, ');
});

it('starts with an APPROVAL_POLICY naming known tools', { timeout: CHILD_MS }, async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'approval-policy-start-'));
  const child = spawnService({ PORT: String(port), DATA_DIR: dataDir, APPROVAL_POLICY: 'command=always,write_file=never' });
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, child, CHILD_MS - 5_000);
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('lists every bad variable with its value, one per line, when there are several', () => {
  let err: unknown;
  try {
    loadConfig({ PORT: '99999', MAX_CONCURRENT_TURNS: 'many' });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  const lines = (err as ConfigError).message.split('\n');
  expect(lines[0]).toBe('invalid configuration:');
  expect(lines.slice(1).sort()).toEqual(['  - MAX_CONCURRENT_TURNS=many: must be an integer from 1 to 1024', '  - PORT=99999: must be an integer from 0 to 65535']);
});
