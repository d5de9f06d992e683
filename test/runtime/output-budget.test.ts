/**
 * One output budget per call (TOOL_OUTPUT_MAX_CHARS) and cuts that never split a character,
 * through the real loop (real openai SDK, scripted Responses server) with the real read_file,
 * command (bubblewrap) and web_fetch tools. Every output the model receives is well-formed
 * UTF-16 (no lone surrogates) and within the budget.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AnyWorkerAgentTool } from '../../src/runtime/tool.js';
import { createWebFetchTool } from '../../src/tools/web/web-fetch.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { computerTools, tempDir, turnContext } from '../tools/computer/support.js';
import { startServer, type LoopbackServer } from '../tools/web/support.js';

const EMOJI = '😀'; // two UTF-16 units

/** No lone surrogate (String.prototype.isWellFormed, ES2024). */
const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

let dataDir: string;
let cleanup: () => Promise<void>;
let tools: AnyWorkerAgentTool[];
let home: string;
let web: LoopbackServer;

beforeAll(async () => {
  ({ dir: dataDir, cleanup } = await tempDir('output-budget-'));
  const ctx = turnContext(dataDir);
  home = ctx.agentHome;
  ({ tools } = await computerTools(ctx));
  await mkdir(home, { recursive: true });
  web = await startServer({ '/emoji': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`x${EMOJI.repeat(20_000)}`) });
});
afterAll(async () => {
  await web.close();
  await cleanup();
});

/** Run one call with the given budget; returns the output the model got in the next request. */
async function outputOf(toolSet: AnyWorkerAgentTool[], name: string, args: Record<string, unknown>, budget?: number): Promise<string> {
  const { server } = await runScriptedTurn({
    tools: toolSet,
    turnContext: turnContext(dataDir),
    ...(budget ? { options: { toolOutputMaxChars: budget } } : {}),
    script: [{ output: [functionCall(name, args, { callId: 'c1' })] }, { output: [message('ok')] }],
  });
  const out = server.requests[1].body.input.find((i: any) => i.type === 'function_call_output' && i.call_id === 'c1')?.output;
  expect(typeof out).toBe('string');
  return out as string;
}

describe('the per-call output budget', () => {
  it('read_file stops at the budget with the offset to continue, and its line clip keeps characters whole', async () => {
    await writeFile(path.join(home, 'wide.txt'), Array.from({ length: 300 }, (_, i) => `${i + 1} ${EMOJI.repeat(30)}`).join('\n'));
    const out = await outputOf(tools, 'read_file', { path: 'wide.txt' }, 3_001);
    expect(out.length).toBeLessThanOrEqual(3_001);
    expect(wellFormed(out)).toBe(true);
    const m = out.match(/\[lines 1-(\d+) of 300; output budget of 3001 characters reached; continue with offset=(\d+)\]$/);
    expect(m).not.toBeNull();
    expect(Number(m![2])).toBe(Number(m![1]) + 1);

    await writeFile(path.join(home, 'long-line.txt'), `a${EMOJI.repeat(2_500)}\n`);
    const clipped = await outputOf(tools, 'read_file', { path: 'long-line.txt' });
    expect(wellFormed(clipped)).toBe(true);
    expect(clipped).toContain('[line clipped: 5001 characters]');
  });

  it('command keeps head and tail within the budget without splitting a character', async () => {
    const out = await outputOf(tools, 'command', { command: `printf 'x'; yes '${EMOJI}' | head -n 20000 | tr -d '\\n'` }, 3_001);
    expect(out.length).toBeLessThanOrEqual(3_001);
    expect(wellFormed(out)).toBe(true);
    expect(out).toMatch(/characters omitted .*full output saved to \.command-logs\//);
  });

  it('web_fetch shares the budget among its pages and cuts on character boundaries', async () => {
    const fetchTool = createWebFetchTool({ allowHosts: ['127.0.0.1'], timeoutMs: 5_000, maxBytes: 1_000_000 });
    const out = await outputOf([fetchTool], 'web_fetch', { urls: [`${web.origin}/emoji`] }, 3_001);
    expect(out.length).toBeLessThanOrEqual(3_001);
    expect(wellFormed(out)).toBe(true);
    expect(out).toContain('characters omitted');
  });

  it('cuts any other tool\'s output at the budget with a marker, keeping characters whole', async () => {
    const big = defineWorkerTool({
      name: 'big', description: 'x', schema: z.object({}), executionMode: 'sequential',
      describeActivity: () => 'Big', execute: async () => textResult(`x${EMOJI.repeat(5_000)}`),
    });
    const out = await outputOf([big], 'big', {}, 1_001);
    expect(out.length).toBeLessThanOrEqual(1_001);
    expect(wellFormed(out)).toBe(true);
    expect(out).toMatch(/\[output cut at 1001 of 10001 characters \(TOOL_OUTPUT_MAX_CHARS\); ask for less/);
  });
});
