/**
 * Edited approval arguments are what runs: the real service on loopback, the real openai SDK
 * against the scripted Responses server and the real read_file tool. The arguments a client sends
 * with an approval are stored and reported (`edited_arguments`, `approval.resolved.arguments`) as
 * the tool's schema parsed them — the form `tool.started` shows and the tool gets — and a repeated
 * decision is compared in that form.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService, type ScriptedServiceHarness } from './support/service.js';
import { readSse } from './support/sse-client.js';
import { validateResponse } from './support/spec.js';

const harness = useScriptedService();

/** A three-line notes.txt in `agent`'s home. */
function seedNotes(h: ScriptedServiceHarness, agent: string): void {
  const home = path.join(h.svc.dataDir, 'agents', agent, 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, 'notes.txt'), 'line one\nline two\nline three\n');
}

function outputFor(body: ResponsesRequestBody, callId: string): string {
  const o = (body.input as { type?: string; call_id?: string; output?: unknown }[]).find((i) => i.type === 'function_call_output' && i.call_id === callId);
  return typeof o?.output === 'string' ? o.output : JSON.stringify(o?.output);
}

const decide = (id: string, body: Record<string, unknown>) => api(harness.svc.url, 'POST', `/v1/turns/${id}/approvals`, body);

/** Start a read_file call that needs approval and wait for its `approval.requested`. */
async function waitingRead(agent: string, callId: string): Promise<string> {
  seedNotes(harness, agent);
  harness.model.push({ output: [functionCall('read_file', { path: 'notes.txt' }, { callId })] }, (body) => ({ output: [message(`read: ${outputFor(body, callId)}`)] }));
  const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'read my notes', agent_id: agent, tools: ['computer'], approvals: { read_file: 'always' } });
  expect(r.status).toBe(202);
  const id = r.body.id as string;
  await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'approval.requested' });
  return id;
}

/** The turn's whole stream once it has finished. */
async function finishedEvents(id: string) {
  const r = await readSse(`${harness.svc.url}/v1/turns/${id}/events`);
  expect(r.serverClosed).toBe(true);
  return r.events;
}

describe('an approval with edited arguments', () => {
  it('stores and reports the arguments as the tool parsed them, the form tool.started shows and the call ran with', async () => {
    const id = await waitingRead('edit-coerce', 'call_c1');
    const d = await decide(id, { call_id: 'call_c1', decision: 'approve', arguments: { path: 'notes.txt', limit: '1' } });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    expect(d.body.edited_arguments).toEqual({ path: 'notes.txt', limit: 1 });
    expect(validateResponse('/v1/turns/{id}/approvals', 'post', 200, d.body)).toEqual([]);

    const events = await finishedEvents(id);
    const resolved = events.find((e) => e.event === 'approval.resolved')!.json;
    const started = events.find((e) => e.event === 'tool.started')!.json;
    expect(resolved.arguments).toEqual({ path: 'notes.txt', limit: 1 });
    expect(started.arguments).toEqual(resolved.arguments);
    const out = outputFor(harness.model.requests.at(-1)!.body, 'call_c1');
    expect(out).toContain('line one');
    expect(out).not.toContain('line two');
    const listed = await api(harness.svc.url, 'GET', `/v1/turns/${id}/approvals`);
    expect(listed.body.data[0].edited_arguments).toEqual({ path: 'notes.txt', limit: 1 });
  });

  it('labels the call by the edited arguments it runs with: the approval record, approval.resolved, tool.started and tool.completed', async () => {
    const id = await waitingRead('edit-label', 'call_l1');
    writeFileSync(path.join(harness.svc.dataDir, 'agents', 'edit-label', 'home', 'other.txt'), 'other one\nother two\n');
    const requested = (await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'approval.requested' })).events.at(-1)!.json;
    expect(requested.label).toBe('Reading notes.txt');
    const d = await decide(id, { call_id: 'call_l1', decision: 'approve', arguments: { path: 'other.txt' } });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    expect(d.body).toMatchObject({ label: 'Reading other.txt', arguments: { path: 'notes.txt' }, edited_arguments: { path: 'other.txt' } });
    expect(validateResponse('/v1/turns/{id}/approvals', 'post', 200, d.body)).toEqual([]);

    const events = await finishedEvents(id);
    const resolved = events.find((e) => e.event === 'approval.resolved')!.json;
    expect(resolved).toMatchObject({ arguments: { path: 'other.txt' }, label: 'Reading other.txt' });
    const started = events.find((e) => e.event === 'tool.started')!.json;
    expect(started).toMatchObject({ arguments: { path: 'other.txt' }, label: 'Reading other.txt' });
    const completed = events.find((e) => e.event === 'tool.completed')!.json;
    expect(completed.label).toMatch(/^Read other\.txt/);
    expect(outputFor(harness.model.requests.at(-1)!.body, 'call_l1')).toContain('other one');
    // The record keeps saying what ran, also read back later; a repeat answers the same.
    const listed = await api(harness.svc.url, 'GET', `/v1/turns/${id}/approvals`);
    expect(listed.body.data[0]).toMatchObject({ label: 'Reading other.txt', edited_arguments: { path: 'other.txt' } });
    expect((await decide(id, { call_id: 'call_l1', decision: 'approve' })).body.label).toBe('Reading other.txt');
  });

  it('keeps the label of the model\'s arguments for an approval without edits', async () => {
    const id = await waitingRead('edit-label-plain', 'call_l2');
    const d = await decide(id, { call_id: 'call_l2', decision: 'approve' });
    expect(d.body.label).toBe('Reading notes.txt');
    const events = await finishedEvents(id);
    expect(events.find((e) => e.event === 'approval.resolved')!.json).not.toHaveProperty('label');
    expect(events.find((e) => e.event === 'tool.started')!.json.label).toBe('Reading notes.txt');
  });

  it('is repeated (200, the stored decision) by the same arguments in either form and by a plain approve; other arguments or a reject are 409', async () => {
    const id = await waitingRead('edit-repeat', 'call_r1');
    const d = await decide(id, { call_id: 'call_r1', decision: 'approve', arguments: { path: 'notes.txt', limit: '2' } });
    expect(d.status).toBe(200);
    for (const repeat of [
      { call_id: 'call_r1', decision: 'approve', arguments: { limit: 2, path: 'notes.txt' } },
      { call_id: 'call_r1', decision: 'approve', arguments: { path: 'notes.txt', limit: '2' } },
      { call_id: 'call_r1', decision: 'approve' },
    ]) {
      const again = await decide(id, repeat);
      expect(again.status, JSON.stringify(repeat)).toBe(200);
      expect(again.body).toMatchObject({ status: 'approved', edited_arguments: { path: 'notes.txt', limit: 2 }, decided_at: d.body.decided_at });
    }
    const other = await decide(id, { call_id: 'call_r1', decision: 'approve', arguments: { path: 'notes.txt', limit: '3' } });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('approval_conflict');
    expect(other.body.error.message).toContain('already approved with other arguments');
    const invalid = await decide(id, { call_id: 'call_r1', decision: 'approve', arguments: { path: 'notes.txt', limit: 'two' } });
    expect(invalid.status).toBe(409);
    expect(invalid.body.error.code).toBe('approval_conflict');
    const reject = await decide(id, { call_id: 'call_r1', decision: 'reject' });
    expect(reject.status).toBe(409);
    expect(validateResponse('/v1/turns/{id}/approvals', 'post', 409, reject.body)).toEqual([]);
    expect((await finishedEvents(id)).find((e) => e.event === 'tool.started')!.json.arguments).toEqual({ path: 'notes.txt', limit: 2 });
  });

  it('after a plain approve, the model arguments sent back are a repeat and other arguments a conflict', async () => {
    const id = await waitingRead('edit-plain', 'call_p1');
    const d = await decide(id, { call_id: 'call_p1', decision: 'approve' });
    expect(d.status).toBe(200);
    expect(d.body.edited_arguments).toBeNull();
    const same = await decide(id, { call_id: 'call_p1', decision: 'approve', arguments: { path: 'notes.txt' } });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ edited_arguments: null, decided_at: d.body.decided_at });
    const other = await decide(id, { call_id: 'call_p1', decision: 'approve', arguments: { path: 'notes.txt', limit: 1 } });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('approval_conflict');
  });
});
