/**
 * Tool approvals with the server's settings: APPROVAL_POLICY applies to requests without
 * `approvals` (a request's own `approvals` replaces it), and APPROVAL_TIMEOUT_S rejects a call
 * nobody decided with reason `timed out` — from the stored `expires_at`, by the sweep.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const harness = useScriptedService({ env: { APPROVAL_POLICY: 'write_file=always', APPROVAL_TIMEOUT_S: '1' } });

function outputFor(body: ResponsesRequestBody, callId: string): unknown {
  return (body.input as { type?: string; call_id?: string; output?: unknown }[]).find((i) => i.type === 'function_call_output' && i.call_id === callId)?.output;
}

describe('APPROVAL_TIMEOUT_S', () => {
  it('rejects a call nobody decided with reason "timed out"; the model reads that it timed out without a decision and the turn completes', async () => {
    harness.model.push(
      { output: [functionCall('write_file', { path: 'late.txt', content: 'late' }, { callId: 'call_to1' })] },
      (body) => ({ output: [message(`model saw: ${String(outputFor(body, 'call_to1'))}`)] }),
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'write late', agent_id: 'timeout-1', tools: ['computer'] });
    const s = await readSse(`${harness.svc.url}${created.body.links.events}`, { timeoutMs: 20_000 });
    const types = s.events.map((e) => e.event);
    expect(types).toEqual(expect.arrayContaining(['approval.requested', 'approval.resolved', 'turn.resumed', 'turn.completed']));
    const requested = s.events.find((e) => e.event === 'approval.requested')!.json;
    const resolved = s.events.find((e) => e.event === 'approval.resolved')!.json;
    expect(resolved).toMatchObject({ call_id: 'call_to1', decision: 'reject', reason: 'timed out' });
    expect(Date.parse(resolved.created_at)).toBeGreaterThanOrEqual(Date.parse(requested.expires_at));
    expect(s.events.find((e) => e.event === 'tool.started')!.json).toMatchObject({ call_id: 'call_to1', label: 'Writing late.txt', arguments: { path: 'late.txt', content: 'late' } });
    expect(s.events.find((e) => e.event === 'tool.completed')!.json).toMatchObject({ call_id: 'call_to1', is_error: true, label: 'Rejected: Writing late.txt' });
    // The model reads that nobody decided — not that a person said no.
    const seen = s.events.at(-1)!.json.output_text as string;
    expect(s.events.at(-1)!.json.type).toBe('turn.completed');
    expect(seen).toBe('model saw: Error: this call was not run: its approval timed out without a decision (nobody approved or rejected it). Do not take this as a refusal; ask the user whether to try again.');
    expect(seen).not.toMatch(/user rejected/);
    expect(existsSync(path.join(harness.svc.dataDir, 'agents', 'timeout-1', 'home', 'late.txt'))).toBe(false);

    const list = await api(harness.svc.url, 'GET', `/v1/turns/${created.body.id}/approvals`);
    expect(list.body.data).toEqual([expect.objectContaining({ call_id: 'call_to1', status: 'rejected', reason: 'timed out', decided_by: 'timeout' })]);
    // The timeout is the decision: approving now conflicts, rejecting again repeats it.
    const late = await api(harness.svc.url, 'POST', `/v1/turns/${created.body.id}/approvals`, { call_id: 'call_to1', decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'approval_conflict', details: { decided_by: 'timeout' } });
    expect((await api(harness.svc.url, 'POST', `/v1/turns/${created.body.id}/approvals`, { call_id: 'call_to1', decision: 'reject' })).status).toBe(200);
  });
});

describe('APPROVAL_POLICY', () => {
  it("is replaced by a request's own approvals", async () => {
    harness.model.push({ output: [functionCall('write_file', { path: 'free.txt', content: 'free' }, { callId: 'call_p1' })] }, { output: [message('written')] });
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'write', agent_id: 'policy-1', tools: ['computer'], approvals: { write_file: 'never' } });
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'written' });
    expect(existsSync(path.join(harness.svc.dataDir, 'agents', 'policy-1', 'home', 'free.txt'))).toBe(true);
  });

  it('is refused at start when malformed, naming the bad part', () => {
    expect(() => loadConfig({ APPROVAL_POLICY: 'write_file=maybe' })).toThrow(/APPROVAL_POLICY=write_file=maybe: "write_file=maybe" is not <tool>=always\|never/);
    expect(loadConfig({ APPROVAL_POLICY: 'destructive' }).APPROVAL_POLICY).toBe('destructive');
    expect(loadConfig({ APPROVAL_POLICY: 'command=never, web_fetch=always' }).APPROVAL_POLICY).toEqual({ command: 'never', web_fetch: 'always' });
    expect(loadConfig({}).APPROVAL_POLICY).toBe('none');
  });
});
