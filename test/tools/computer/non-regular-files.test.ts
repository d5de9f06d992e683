/**
 * FIFOs, sockets (and devices) in the home: file tools refuse them at once with a clear error
 * instead of blocking a libuv threadpool thread forever in open(2)/read(2) (four such calls used
 * to starve the pool and hang every other agent's file tools, DNS lookups included); grep and
 * find skip them.
 */
import { closeSync, constants, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import dns from 'node:dns';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyWorkerAgentTool } from '../../../src/runtime/tool.js';
import { call, computerTools, tempDir, turnContext, type CallResult } from './support.js';

let cleanup: () => Promise<void>;
let tools: AnyWorkerAgentTool[];
let home: string;
const FIFOS = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];

beforeAll(async () => {
  const t = await tempDir('non-regular-');
  cleanup = t.cleanup;
  const ctx = turnContext(t.dir);
  home = ctx.agentHome;
  ({ tools } = await computerTools(ctx));
  const mk = await call(tools, 'command', {
    command: `mkfifo ${FIFOS.join(' ')} && python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('sock')" && echo needle > plain.txt && ls -l`,
  });
  expect(mk.output).toMatch(/^exit_code=0/);
});
afterAll(async () => {
  // Should a call have blocked in open(2) (the bug), opening the other end releases its thread.
  for (const f of FIFOS) {
    try {
      closeSync(openSync(path.join(home, f), constants.O_RDWR | constants.O_NONBLOCK));
    } catch {
      // gone
    }
  }
  await cleanup();
});

/** Resolve with the call's result, or 'HUNG' after `ms`. */
function within(p: Promise<CallResult>, ms: number): Promise<CallResult | 'HUNG'> {
  return Promise.race([p, new Promise<'HUNG'>((r) => setTimeout(() => r('HUNG'), ms))]);
}

describe('non-regular files in the home', () => {
  it('read_file, write_file, edit_file and apply_patch refuse FIFOs and sockets at once, and the threadpool stays free', async () => {
    const calls = await Promise.all([
      within(call(tools, 'read_file', { path: 'p1' }), 3000),
      within(call(tools, 'edit_file', { path: 'p2', old_string: 'a', new_string: 'b' }), 3000),
      within(call(tools, 'write_file', { path: 'p3', content: 'x' }), 3000),
      within(call(tools, 'write_file', { path: 'p4', content: 'x' }), 3000),
      within(call(tools, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: p5\n@@\n-a\n+b\n*** End Patch' }), 3000),
      within(call(tools, 'apply_patch', { patch: '*** Begin Patch\n*** Delete File: p6\n*** End Patch' }), 3000),
      within(call(tools, 'read_file', { path: 'sock' }), 3000),
      within(call(tools, 'write_file', { path: 'sock', content: 'x' }), 3000),
    ]);
    for (const r of calls) {
      expect(r).not.toBe('HUNG');
      if (r === 'HUNG') continue;
      expect(r.isError).toBe(true);
      expect(r.output).toMatch(/(named pipe|FIFO|socket).*regular file/);
    }
    // Unrelated work that needs the libuv threadpool still runs.
    const unrelated = await Promise.race([
      Promise.all([readFile('/etc/hostname'), dns.promises.lookup('localhost')]).then(() => 'ok'),
      new Promise((r) => setTimeout(() => r('HUNG'), 3000)),
    ]);
    expect(unrelated).toBe('ok');
  });

  it('grep and find skip FIFOs and sockets', async () => {
    const g = await within(call(tools, 'grep', { pattern: 'needle' }), 3000);
    expect(g !== 'HUNG' && g.output).toBe('plain.txt:1:needle');
    const one = await within(call(tools, 'grep', { pattern: 'needle', path: 'p1' }), 3000);
    expect(one !== 'HUNG' && one.output).toBe('no matches for "needle"');
    const f = await within(call(tools, 'find', { pattern: '*' }), 3000);
    expect(f !== 'HUNG' && f.output).toBe('plain.txt');
  });
});
