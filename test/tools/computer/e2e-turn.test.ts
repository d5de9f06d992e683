/**
 * One whole turn through the HTTP API with the computer family: the scripted model (real openai
 * SDK over loopback) writes a file, runs a command on it in the real bubblewrap sandbox, reads the
 * command's result file and answers with it. Streamed over real SSE.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../../support/scripted-responses-server.js';
import { api, useScriptedService } from '../../e2e/support/service.js';
import { readSse } from '../../e2e/support/sse-client.js';

const harness = useScriptedService();

/** The output the model got back for its last function call. */
function lastToolOutput(body: ResponsesRequestBody): string {
  const outputs = (body.input as { type?: string; output?: unknown }[]).filter((i) => i.type === 'function_call_output');
  const o = outputs[outputs.length - 1]?.output;
  return typeof o === 'string' ? o : JSON.stringify(o);
}

describe('a turn that uses the computer', () => {
  it('writes a file, runs a command on it in the sandbox, reads the result and answers with it', async () => {
    harness.model.push(
      { output: [functionCall('write_file', { path: 'work/fruit.txt', content: 'pear\napple\nfig\napple\n' })] },
      { output: [functionCall('command', { command: 'sort -u fruit.txt > sorted.txt && wc -l < sorted.txt', workdir: 'work' })] },
      { output: [functionCall('read_file', { path: 'work/sorted.txt' })] },
      (body) => ({ output: [message(`sorted:\n${lastToolOutput(body)}`)] }),
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, {
      method: 'POST',
      body: { input: 'sort my fruit list', agent_id: 'fruit-agent', tools: ['computer'] },
      timeoutMs: 30_000,
    });
    expect(r.status).toBe(200);
    const started = r.events[0].json;
    expect(started.type).toBe('turn.started');
    expect(started.tools).toEqual(expect.arrayContaining(['command', 'read_file', 'write_file', 'edit_file', 'apply_patch', 'ls', 'find', 'grep']));

    const completed = r.events.filter((e) => e.event === 'tool.completed').map((e) => e.json);
    expect(completed.map((c) => [c.name, c.is_error])).toEqual([
      ['write_file', false],
      ['command', false],
      ['read_file', false],
    ]);
    const labels = r.events.filter((e) => e.event === 'tool.started').map((e) => e.json.label);
    expect(labels).toEqual(['Writing work/fruit.txt', 'Running `sort -u fruit.txt > sorted.txt && wc -l < sorted.txt`', 'Reading work/sorted.txt']);
    expect(completed[1].label).toMatch(/^Ran `sort -u fruit\.txt > sorted\.txt && wc -l < sorted\.txt` \(exit 0, \d+\.\d s\)$/);
    expect(completed[1].output).toMatch(/^exit_code=0 duration=\d+\.\ds\n3\n?$/);
    expect(completed[2].label).toBe('Read work/sorted.txt (lines 1-3 of 3)');

    const last = r.events[r.events.length - 1].json;
    expect(last.type).toBe('turn.completed');
    expect(last.output_text).toBe('sorted:\n     1\tapple\n     2\tfig\n     3\tpear\n[lines 1-3 of 3; end of file]');

    // The files are really in that agent's home under DATA_DIR.
    const home = path.join(harness.svc.dataDir, 'agents', 'fruit-agent', 'home');
    expect(await readFile(path.join(home, 'work/sorted.txt'), 'utf8')).toBe('apple\nfig\npear\n');

    const turn = await api(harness.svc.url, 'GET', `/v1/turns/${started.turn_id}`);
    expect(turn.body).toMatchObject({ status: 'completed', agent_id: 'fruit-agent', steps: 4 });
  });
});
