/**
 * Activity labels quote model- or user-given text (a file name, a tool name), so the runtime
 * writes the characters src/unsafe-chars.ts lists — bidirectional controls, control characters,
 * line separators, invisible characters — as `\uXXXX` escapes in every label it shows, whichever
 * tool made it: `tool.started` and `tool.completed` (done, failed, not run, rejected),
 * `approval.requested` and a waiting turn's `pending_approvals`. Through the real service on
 * loopback, the scripted Responses server and the real computer tools; emoji sequences with ZWJ,
 * Persian with ZWNJ and Hebrew stay as they are.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';

const harness = useScriptedService();

/** No character a label must not carry raw (bidi controls, controls, separators, U+200B/U+2060/U+FEFF). */
const RAW_UNSAFE = /[\p{Cc}\u061C\u200B\u200E\u200F\u2028\u2029\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/u;

describe('activity labels', () => {
  it('escape bidi and control characters in the labels of started, completed, failed and unknown calls, and keep other text', async () => {
    const kept = 'notes/👩\u200D💻 می\u200Cخواهم מדריך.txt';
    harness.model.push(
      {
        output: [
          functionCall('write_file', { path: 'outbox/evil\u202Etxt.exe', content: 'MZ\n' }, { callId: 'bidi' }),
          functionCall('write_file', { path: kept, content: 'hi\n' }, { callId: 'kept' }),
          functionCall('write_file', { path: 'd\u2066ir/x.txt', content: 'x' }, { callId: 'mkdir' }),
          functionCall('write_file', { path: 'd\u2066ir', content: 'x' }, { callId: 'failed' }),
          functionCall('evil\u202Etool', {}, { callId: 'unknown' }),
        ],
      },
      { output: [message('done')] },
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'write them', agent_id: 'labels-1', tools: ['computer'] }, timeoutMs: 60_000 });
    expect(r.status).toBe(200);
    const started = Object.fromEntries(r.events.filter((e) => e.event === 'tool.started').map((e) => [e.json.call_id, e.json.label]));
    const completed = Object.fromEntries(r.events.filter((e) => e.event === 'tool.completed').map((e) => [e.json.call_id, e.json]));

    expect(started.bidi).toBe('Writing outbox/evil\\u202Etxt.exe');
    expect(completed.bidi).toMatchObject({ is_error: false, label: 'Created outbox/evil\\u202Etxt.exe (1 line)' });
    expect(started.kept).toBe(`Writing ${kept}`);
    expect(completed.kept).toMatchObject({ is_error: false, label: `Created ${kept} (1 line)` });
    expect(started.failed).toBe('Writing d\\u2066ir');
    expect(completed.failed).toMatchObject({ is_error: true, label: 'Could not write d\\u2066ir' });
    expect(started.unknown).toBe('Calling evil\\u202Etool');
    expect(completed.unknown.label).toBe('Could not call evil\\u202Etool: no such tool');
    for (const e of r.events.filter((x) => x.event === 'tool.started' || x.event === 'tool.completed')) {
      expect(e.json.label, e.json.call_id).not.toMatch(RAW_UNSAFE);
    }
  }, 90_000);

  it('escape them in an approval request, in pending_approvals and in the rejected call', async () => {
    harness.model.push({ output: [functionCall('write_file', { path: 'a\u202Eb.txt', content: 'x' }, { callId: 'ask' })] }, { output: [message('ok')] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'write it', agent_id: 'labels-2', tools: ['computer'], approvals: { write_file: 'always' } });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    const asked = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'approval.requested' });
    expect(asked.events.at(-1)!.json).toMatchObject({ type: 'approval.requested', call_id: 'ask', label: 'Writing a\\u202Eb.txt' });
    let waiting = (await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body;
    for (let i = 0; waiting.status !== 'waiting' && i < 200; i++) {
      await new Promise((res) => setTimeout(res, 25));
      waiting = (await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body;
    }
    expect(waiting.pending_approvals).toEqual([expect.objectContaining({ call_id: 'ask', label: 'Writing a\\u202Eb.txt' })]);

    expect((await api(harness.svc.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'ask', decision: 'reject' })).status).toBe(200);
    const rest = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': String(asked.events.at(-1)!.id) } });
    const done = rest.events.find((e) => e.event === 'tool.completed')!.json;
    expect(done).toMatchObject({ call_id: 'ask', is_error: true, label: 'Rejected: Writing a\\u202Eb.txt' });
  }, 90_000);
});
