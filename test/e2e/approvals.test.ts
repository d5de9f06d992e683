/**
 * Tool approvals over HTTP: the real service on loopback, a real SSE client, the real openai SDK
 * against the scripted Responses server, and the real computer tools writing into the agent's
 * home. A call that needs approval waits (status `waiting`, `pending_approvals`) until a client
 * decides with POST /v1/turns/{id}/approvals; then the turn continues from its checkpoint.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService, type ScriptedServiceHarness } from './support/service.js';
import { readSse, type SseEvent } from './support/sse-client.js';
import { validateComponent, validateResponse } from './support/spec.js';

const harness = useScriptedService();

const homeFile = (h: ScriptedServiceHarness, agent: string, rel: string) => path.join(h.svc.dataDir, 'agents', agent, 'home', rel);

/** The function_call_output the model got for `callId` in its last request. */
function outputFor(body: ResponsesRequestBody, callId: string): string {
  const o = (body.input as { type?: string; call_id?: string; output?: unknown }[]).find((i) => i.type === 'function_call_output' && i.call_id === callId);
  return typeof o?.output === 'string' ? o.output : JSON.stringify(o?.output);
}

/** Start a turn (202) and read its stream until `approval.requested` events for `count` calls. */
async function startWaiting(h: ScriptedServiceHarness, body: Record<string, unknown>, count = 1): Promise<{ id: string; events: SseEvent[] }> {
  const r = await api(h.svc.url, 'POST', '/v1/turns', body);
  expect(r.status).toBe(202);
  const id = r.body.id as string;
  const s = await readSse(`${h.svc.url}/v1/turns/${id}/events`, { stopWhen: (_e, all) => all.filter((x) => x.event === 'approval.requested').length >= count });
  return { id, events: s.events };
}

/** Wait until GET /v1/turns/{id} satisfies `ok`. */
async function turnWhen(h: ScriptedServiceHarness, id: string, ok: (t: any) => boolean, ms = 15_000): Promise<any> {
  const end = Date.now() + ms;
  for (;;) {
    const t = (await api(h.svc.url, 'GET', `/v1/turns/${id}`)).body;
    if (ok(t)) return t;
    if (Date.now() > end) throw new Error(`turn ${id} is still ${t.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const decide = (h: ScriptedServiceHarness, id: string, body: Record<string, unknown>) => api(h.svc.url, 'POST', `/v1/turns/${id}/approvals`, body);

/** The rest of a turn's stream after `after`, to its terminal event. */
async function rest(h: ScriptedServiceHarness, id: string, after: number): Promise<SseEvent[]> {
  const r = await readSse(`${h.svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': String(after) } });
  expect(r.serverClosed).toBe(true);
  return r.events;
}

describe('a call that needs approval', () => {
  it('waits as a checkpoint, is approved, runs, and the turn completes', async () => {
    harness.model.push(
      { output: [functionCall('write_file', { path: 'notes/plan.txt', content: 'step one\n' }, { callId: 'call_w1' })] },
      (body) => ({ output: [message(`wrote it: ${outputFor(body, 'call_w1')}`)] }),
    );
    const { id, events } = await startWaiting(harness, { input: 'write my plan', agent_id: 'appr-1', tools: ['computer'], approvals: { write_file: 'always' } });
    const requested = events.at(-1)!.json;
    expect(requested).toMatchObject({ type: 'approval.requested', call_id: 'call_w1', name: 'write_file', arguments: { path: 'notes/plan.txt', content: 'step one\n' }, label: 'Writing notes/plan.txt' });
    expect(Date.parse(requested.expires_at) - Date.now()).toBeGreaterThan(86_000_000);
    expect(events.some((e) => e.event === 'tool.started')).toBe(false);

    const waiting = await turnWhen(harness, id, (t) => t.status === 'waiting');
    expect(waiting.pending_approvals).toEqual([
      expect.objectContaining({ call_id: 'call_w1', name: 'write_file', label: 'Writing notes/plan.txt', arguments: { path: 'notes/plan.txt', content: 'step one\n' }, status: 'pending', expires_at: requested.expires_at }),
    ]);
    expect(existsSync(homeFile(harness, 'appr-1', 'notes/plan.txt'))).toBe(false);
    expect((await harness.svc.services.turns.stats()).waiting).toBeGreaterThanOrEqual(1);
    const metrics = await fetch(`${harness.svc.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/^turns_waiting [1-9]/m);

    const d = await decide(harness, id, { call_id: 'call_w1', decision: 'approve' });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ call_id: 'call_w1', status: 'approved', decided_by: 'client', edited_arguments: null });

    const after = await rest(harness, id, Number(events.at(-1)!.id));
    expect(after.map((e) => e.event)).toEqual(['approval.resolved', 'turn.resumed', 'tool.started', 'tool.completed', 'message.delta', 'message.completed', 'turn.completed']);
    expect(after[0].json).toMatchObject({ call_id: 'call_w1', decision: 'approve' });
    expect(after[3].json).toMatchObject({ call_id: 'call_w1', is_error: false, label: 'Created notes/plan.txt (1 line)' });
    expect(readFileSync(homeFile(harness, 'appr-1', 'notes/plan.txt'), 'utf8')).toBe('step one\n');
    const done = (await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body;
    expect(done).toMatchObject({ status: 'completed', output_text: 'wrote it: created notes/plan.txt (1 line, 9 bytes)', pending_approvals: [] });

    // Everything above is what openapi.yaml documents.
    expect(validateResponse('/v1/turns/{id}', 'get', 200, waiting)).toEqual([]);
    expect(validateResponse('/v1/turns/{id}/approvals', 'post', 200, d.body)).toEqual([]);
    const list = await api(harness.svc.url, 'GET', `/v1/turns/${id}/approvals`);
    expect(list.body.data).toEqual([expect.objectContaining({ call_id: 'call_w1', status: 'approved' })]);
    expect(validateResponse('/v1/turns/{id}/approvals', 'get', 200, list.body)).toEqual([]);
    for (const e of [...events, ...after]) expect(validateComponent('TurnEvent', e.json), e.event).toEqual([]);

    // Repeating the recorded decision after the turn moved on: 200, the same result.
    const again = await decide(harness, id, { call_id: 'call_w1', decision: 'approve' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ call_id: 'call_w1', status: 'approved', decided_at: d.body.decided_at });
    const other = await decide(harness, id, { call_id: 'call_w1', decision: 'reject' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('approval_conflict');
    expect(validateResponse('/v1/turns/{id}/approvals', 'post', 409, other.body)).toEqual([]);
  });

  it('approved with edited arguments runs with them, and the transcript shows the call that ran', async () => {
    harness.model.push(
      { output: [functionCall('write_file', { path: 'draft.txt', content: 'rough' }, { callId: 'call_e1' })] },
      { output: [message('ok')] },
    );
    const { id } = await startWaiting(harness, { input: 'write a draft', agent_id: 'appr-2', tools: ['computer'], approvals: { write_file: 'always' } });
    const d = await decide(harness, id, { call_id: 'call_e1', decision: 'approve', arguments: { path: 'final.txt', content: 'polished' } });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ status: 'approved', edited_arguments: { path: 'final.txt', content: 'polished' }, arguments: { path: 'draft.txt', content: 'rough' } });
    await turnWhen(harness, id, (t) => t.status === 'completed');
    expect(readFileSync(homeFile(harness, 'appr-2', 'final.txt'), 'utf8')).toBe('polished');
    expect(existsSync(homeFile(harness, 'appr-2', 'draft.txt'))).toBe(false);
    const last = harness.model.requests.at(-1)!.body;
    const call = (last.input as any[]).find((i) => i.type === 'function_call' && i.call_id === 'call_e1');
    expect(JSON.parse(call.arguments)).toEqual({ path: 'final.txt', content: 'polished' });
    expect(outputFor(last, 'call_e1')).toBe('created final.txt (1 line, 8 bytes)');
    const resolved = (await readSse(`${harness.svc.url}/v1/turns/${id}/events`)).events.find((e) => e.event === 'approval.resolved')!.json;
    expect(resolved).toMatchObject({ decision: 'approve', arguments: { path: 'final.txt', content: 'polished' } });
    // The same approval again (keys in another order) is a repeat; other edited arguments are not.
    expect((await decide(harness, id, { call_id: 'call_e1', decision: 'approve', arguments: { content: 'polished', path: 'final.txt' } })).status).toBe(200);
    const differs = await decide(harness, id, { call_id: 'call_e1', decision: 'approve', arguments: { path: 'final.txt', content: 'other' } });
    expect(differs.status).toBe(409);
    expect(differs.body.error.code).toBe('approval_conflict');
  });

  it('refuses edited arguments the tool schema rejects (400 with details) and keeps the call pending', async () => {
    harness.model.push({ output: [functionCall('write_file', { path: 'x.txt', content: 'x' }, { callId: 'call_i1' })] }, { output: [message('fine')] });
    const { id } = await startWaiting(harness, { input: 'write x', agent_id: 'appr-3', tools: ['computer'], approvals: { write_file: 'always' } });
    const bad = await decide(harness, id, { call_id: 'call_i1', decision: 'approve', arguments: { path: 'x.txt', content: 42 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_arguments');
    expect(bad.body.error.message).toBe('the edited arguments do not fit tool write_file: content must be a string, got 42');
    expect(bad.body.error.details).toEqual([{ path: 'content', code: 'invalid_type', message: 'must be a string, got 42' }]);
    expect(validateResponse('/v1/turns/{id}/approvals', 'post', 400, bad.body)).toEqual([]);
    const unknownKey = await decide(harness, id, { call_id: 'call_i1', decision: 'approve', arguments: { path: 'x.txt', content: 'x', mode: 'append' } });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.error.message).toBe('the edited arguments do not fit tool write_file: mode is not a parameter of this tool');
    // Several problems: one `<path> <what is wrong>` each, `; `-separated, on one line.
    const several = await decide(harness, id, { call_id: 'call_i1', decision: 'approve', arguments: { content: 7, mode: 'append' } });
    expect(several.body.error.message).toBe(
      'the edited arguments do not fit tool write_file: mode is not a parameter of this tool; path is required: a string; content must be a string, got 7',
    );
    expect(several.body.error.details.map((d: any) => [d.path, d.code])).toEqual([['mode', 'unrecognized_keys'], ['path', 'invalid_type'], ['content', 'invalid_type']]);
    const withReject = await decide(harness, id, { call_id: 'call_i1', decision: 'reject', arguments: { path: 'y' } });
    expect(withReject.status).toBe(400);
    expect(withReject.body.error.code).toBe('invalid_request');
    const t = (await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body;
    expect(t.status).toBe('waiting');
    expect(t.pending_approvals.map((a: any) => a.call_id)).toEqual(['call_i1']);
    // null reason and arguments (as GET shows them unset) are left out: the call runs as asked.
    expect((await decide(harness, id, { call_id: 'call_i1', decision: 'approve', reason: null, arguments: null })).status).toBe(200);
    await turnWhen(harness, id, (x) => x.status === 'completed');
    expect(readFileSync(homeFile(harness, 'appr-3', 'x.txt'), 'utf8')).toBe('x');
  });

  it('rejected: the model gets "Error: the user rejected this call: <reason>", nothing runs, and the call is reported with its arguments and label', async () => {
    harness.model.push(
      { output: [functionCall('write_file', { path: 'secret.txt', content: 'leak' }, { callId: 'call_r1' })] },
      (body) => ({ output: [message(`understood: ${outputFor(body, 'call_r1')}`)] }),
    );
    const { id, events } = await startWaiting(harness, { input: 'save it', agent_id: 'appr-4', tools: ['computer'], approvals: { write_file: 'always' } });
    const d = await decide(harness, id, { call_id: 'call_r1', decision: 'reject', reason: 'not in that folder' });
    expect(d.body).toMatchObject({ status: 'rejected', reason: 'not in that folder' });
    const after = await rest(harness, id, Number(events.at(-1)!.id));
    expect(after[0].json).toMatchObject({ type: 'approval.resolved', call_id: 'call_r1', decision: 'reject', reason: 'not in that folder' });
    const started = after.find((e) => e.event === 'tool.started')!.json;
    expect(started).toMatchObject({ call_id: 'call_r1', name: 'write_file', label: 'Writing secret.txt', arguments: { path: 'secret.txt', content: 'leak' } });
    const completed = after.find((e) => e.event === 'tool.completed')!.json;
    expect(completed).toMatchObject({ call_id: 'call_r1', is_error: true, label: 'Rejected: Writing secret.txt', output: 'Error: the user rejected this call: not in that folder' });
    expect(after.at(-1)!.json).toMatchObject({ type: 'turn.completed', output_text: 'understood: Error: the user rejected this call: not in that folder' });
    expect(existsSync(homeFile(harness, 'appr-4', 'secret.txt'))).toBe(false);
  });

  it('runs the calls of the same response that need no approval at once; the round completes when the decision is in', async () => {
    harness.model.push(
      {
        output: [
          functionCall('todo', { todos: [{ id: '1', content: 'write the file', status: 'in_progress' }] }, { callId: 'call_t1' }),
          functionCall('write_file', { path: 'both.txt', content: 'both' }, { callId: 'call_t2' }),
        ],
      },
      { output: [message('both done')] },
    );
    const { id, events } = await startWaiting(harness, { input: 'plan and write', agent_id: 'appr-5', tools: ['todo', 'computer'], approvals: { write_file: 'always' } });
    // The todo call ran before any decision; the write waits.
    const first = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'tool.completed' && e.json.call_id === 'call_t1' });
    expect(first.events.find((e) => e.event === 'tool.completed')!.json).toMatchObject({ call_id: 'call_t1', is_error: false });
    const t = await turnWhen(harness, id, (x) => x.status === 'waiting');
    expect(t.pending_approvals.map((a: any) => a.call_id)).toEqual(['call_t2']);
    const requestsBefore = harness.model.requests.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(harness.model.requests.length).toBe(requestsBefore); // no model request while waiting

    expect((await decide(harness, id, { call_id: 'call_t2', decision: 'approve' })).status).toBe(200);
    await turnWhen(harness, id, (x) => x.status === 'completed');
    const all = (await readSse(`${harness.svc.url}/v1/turns/${id}/events`)).events;
    expect(all.filter((e) => e.event === 'tool.completed').map((e) => e.json.call_id)).toEqual(['call_t1', 'call_t2']);
    expect(all.filter((e) => e.event === 'tool.started' && e.json.call_id === 'call_t1')).toHaveLength(1);
    const last = harness.model.requests.at(-1)!.body.input as any[];
    expect(last.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual(['call_t1', 'call_t2']);
    expect(outputFor(harness.model.requests.at(-1)!.body, 'call_t2')).toBe('created both.txt (1 line, 4 bytes)');
    void events;
  });

  it('holds back the calls after a waiting one, even those needing no approval, and runs them in order after the decision', async () => {
    harness.model.push(
      {
        output: [
          functionCall('write_file', { path: 'order.txt', content: 'first' }, { callId: 'call_o1' }),
          functionCall('read_file', { path: 'order.txt' }, { callId: 'call_o2' }),
        ],
      },
      (body) => ({ output: [message(outputFor(body, 'call_o2').includes('first') ? 'read what was written' : 'read too early')] }),
    );
    const { id } = await startWaiting(harness, { input: 'write, then read', agent_id: 'appr-order', tools: ['computer'], approvals: { write_file: 'always' } });
    await turnWhen(harness, id, (x) => x.status === 'waiting');
    await new Promise((r) => setTimeout(r, 300)); // had the read run now, it would find no file
    expect((await decide(harness, id, { call_id: 'call_o1', decision: 'approve' })).status).toBe(200);
    const done = await turnWhen(harness, id, (x) => x.status === 'completed');
    expect(done.output_text).toBe('read what was written');
    const all = (await readSse(`${harness.svc.url}/v1/turns/${id}/events`)).events;
    expect(all.filter((e) => e.event === 'tool.completed').map((e) => e.json.call_id)).toEqual(['call_o1', 'call_o2']);
  });

  it('with two calls waiting, the turn stays waiting after the first decision and continues after the second', async () => {
    harness.model.push(
      {
        output: [
          functionCall('write_file', { path: 'one.txt', content: '1' }, { callId: 'call_m1' }),
          functionCall('write_file', { path: 'two.txt', content: '2' }, { callId: 'call_m2' }),
        ],
      },
      (body) => ({ output: [message(`${outputFor(body, 'call_m1')} | ${outputFor(body, 'call_m2')}`)] }),
    );
    const { id } = await startWaiting(harness, { input: 'two files', agent_id: 'appr-11', tools: ['computer'], approvals: { write_file: 'always' } }, 2);
    await turnWhen(harness, id, (x) => x.status === 'waiting');
    const requests = harness.model.requests.length;
    expect((await decide(harness, id, { call_id: 'call_m2', decision: 'reject', reason: 'only one' })).body.turn_status).toBe('waiting');
    await new Promise((r) => setTimeout(r, 300));
    const still = (await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body;
    expect(still.status).toBe('waiting');
    expect(still.pending_approvals.map((a: any) => a.call_id)).toEqual(['call_m1']);
    expect(harness.model.requests.length).toBe(requests);
    expect((await decide(harness, id, { call_id: 'call_m1', decision: 'approve' })).status).toBe(200);
    const done = await turnWhen(harness, id, (x) => x.status === 'completed');
    expect(done.output_text).toBe('created one.txt (1 line, 1 byte) | Error: the user rejected this call: only one');
    expect(existsSync(homeFile(harness, 'appr-11', 'two.txt'))).toBe(false);
  });

  it('"destructive" asks before the tools that can lose data — overwriting or editing a file, a command — and runs read-only ones at once', async () => {
    harness.model.push({ output: [functionCall('write_file', { path: 'keep.txt', content: 'original\n' })] }, { output: [message('saved')] });
    const setup = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'save it', agent_id: 'appr-6', tools: ['computer'] });
    expect(setup.body.status).toBe('completed');
    harness.model.push(
      {
        output: [
          functionCall('read_file', { path: 'keep.txt' }, { callId: 'call_d0' }),
          functionCall('write_file', { path: 'keep.txt', content: 'overwritten\n' }, { callId: 'call_d1' }),
          functionCall('edit_file', { path: 'keep.txt', old_string: 'original', new_string: 'edited' }, { callId: 'call_d2' }),
          functionCall('command', { command: 'rm -f keep.txt' }, { callId: 'call_d3' }),
        ],
      },
      { output: [message('kept')] },
    );
    const { id, events } = await startWaiting(harness, { input: 'clean up', agent_id: 'appr-6', tools: ['computer'], approvals: 'destructive' }, 3);
    const t = await turnWhen(harness, id, (x) => x.status === 'waiting');
    expect(t.pending_approvals.map((a: any) => [a.call_id, a.name, a.label])).toEqual([
      ['call_d1', 'write_file', 'Writing keep.txt'],
      ['call_d2', 'edit_file', 'Editing keep.txt'],
      ['call_d3', 'command', 'Running `rm -f keep.txt`'],
    ]);
    expect(events.some((e) => e.event === 'approval.requested' && e.json.call_id === 'call_d0')).toBe(false);
    expect(readFileSync(homeFile(harness, 'appr-6', 'keep.txt'), 'utf8')).toBe('original\n'); // nothing changed while waiting
    expect((await decide(harness, id, { call_id: 'call_d1', decision: 'reject', reason: 'keep it' })).status).toBe(200);
    expect((await decide(harness, id, { call_id: 'call_d2', decision: 'approve' })).status).toBe(200);
    expect((await decide(harness, id, { call_id: 'call_d3', decision: 'reject' })).status).toBe(200);
    await turnWhen(harness, id, (x) => x.status === 'completed');
    expect(readFileSync(homeFile(harness, 'appr-6', 'keep.txt'), 'utf8')).toBe('edited\n');
    const all = (await readSse(`${harness.svc.url}/v1/turns/${id}/events`)).events;
    const read = all.findIndex((e) => e.event === 'tool.completed' && e.json.call_id === 'call_d0');
    expect(all[read]?.json).toMatchObject({ is_error: false, output: expect.stringContaining('original') });
    expect(read).toBeLessThan(all.findIndex((e) => e.event === 'approval.resolved')); // it ran while the others waited
  });

  it('asks nothing for a call with invalid arguments: it gets the normal Error: output', async () => {
    harness.model.push(
      { output: [functionCall('write_file', { path: 'v.txt' }, { callId: 'call_v1' })] },
      (body) => ({ output: [message(outputFor(body, 'call_v1').split('\n')[0])] }),
    );
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'write', agent_id: 'appr-7', tools: ['computer'], approvals: { write_file: 'always' } });
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'Error: invalid arguments for tool write_file:' });
    const all = (await readSse(`${harness.svc.url}/v1/turns/${r.body.id}/events`)).events;
    expect(all.some((e) => e.event === 'approval.requested')).toBe(false);
  });
});

describe('decisions', () => {
  it('of two clients deciding differently at once, exactly one wins; the other gets 409', async () => {
    harness.model.push({ output: [functionCall('write_file', { path: 'race.txt', content: 'r' }, { callId: 'call_x1' })] }, { output: [message('raced')] });
    const { id } = await startWaiting(harness, { input: 'race', agent_id: 'appr-8', tools: ['computer'], approvals: { write_file: 'always' } });
    const [a, b] = await Promise.all([
      decide(harness, id, { call_id: 'call_x1', decision: 'approve' }),
      decide(harness, id, { call_id: 'call_x1', decision: 'reject', reason: 'no' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? a.body : b.body;
    const loser = a.status === 409 ? a.body : b.body;
    expect(loser.error).toMatchObject({ code: 'approval_conflict', details: { call_id: 'call_x1', decision: winner.status === 'approved' ? 'approve' : 'reject' } });
    await turnWhen(harness, id, (x) => x.status === 'completed');
    const all = (await readSse(`${harness.svc.url}/v1/turns/${id}/events`)).events;
    expect(all.filter((e) => e.event === 'approval.resolved')).toHaveLength(1);
    expect(existsSync(homeFile(harness, 'appr-8', 'race.txt'))).toBe(winner.status === 'approved');
  });

  it('a decision that arrives while other calls of the round still run is not lost: the turn continues once they end', async () => {
    harness.model.push(
      {
        output: [
          functionCall('write_file', { path: 'early.txt', content: 'early' }, { callId: 'call_y1' }),
          functionCall('command', { command: 'sleep 2; echo slept' }, { callId: 'call_y2' }),
        ],
      },
      { output: [message('both finished')] },
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'race the round', agent_id: 'appr-10', tools: ['computer'], approvals: { write_file: 'always' } });
    const id = created.body.id as string;
    // Decide as soon as the command starts (the approval was asked before it).
    const s = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'tool.started' && e.json.call_id === 'call_y2' });
    expect(s.events.some((e) => e.event === 'approval.requested')).toBe(true);
    const d = await decide(harness, id, { call_id: 'call_y1', decision: 'approve' });
    expect(d.status).toBe(200);
    expect(d.body.turn_status).toBe('running');
    const t = await turnWhen(harness, id, (x) => x.status === 'completed', 30_000);
    expect(t.output_text).toBe('both finished');
    expect(readFileSync(homeFile(harness, 'appr-10', 'early.txt'), 'utf8')).toBe('early');
    const input = harness.model.requests.at(-1)!.body.input as any[];
    expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual(['call_y1', 'call_y2']);
    expect(outputFor(harness.model.requests.at(-1)!.body, 'call_y2')).toContain('slept');
  });

  it('a tool without an activity label (todo) is asked about with label null, present as null in every view', async () => {
    harness.model.push(
      { output: [functionCall('todo', { todos: [{ id: '1', content: 'plan', status: 'pending' }] }, { callId: 'call_t1' })] },
      { output: [message('planned')] },
    );
    const { id, events } = await startWaiting(harness, { input: 'plan it', agent_id: 'appr-label', tools: ['todo'], approvals: { todo: 'always' } });
    const requested = events.at(-1)!.json;
    expect(requested.type).toBe('approval.requested');
    expect(Object.hasOwn(requested, 'label') && requested.label === null).toBe(true);
    const waiting = await turnWhen(harness, id, (t) => t.status === 'waiting');
    expect(Object.hasOwn(waiting.pending_approvals[0], 'label') && waiting.pending_approvals[0].label === null).toBe(true);
    const listed = await api(harness.svc.url, 'GET', `/v1/turns/${id}/approvals`);
    expect(Object.hasOwn(listed.body.data[0], 'label') && listed.body.data[0].label === null).toBe(true);
    expect(validateResponse('/v1/turns/{id}/approvals', 'get', 200, listed.body)).toEqual([]);
    const d = await decide(harness, id, { call_id: 'call_t1', decision: 'approve' });
    expect(d.status).toBe(200);
    expect(Object.hasOwn(d.body, 'label') && d.body.label === null).toBe(true);
    expect((await rest(harness, id, Number(events.at(-1)!.id))).at(-1)!.event).toBe('turn.completed');
  });

  it('404 for a call the turn never asked about and for an unknown turn', async () => {
    harness.model.push({ output: [message('no tools')] });
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    const d = await decide(harness, r.body.id, { call_id: 'call_nope', decision: 'approve' });
    expect(d.status).toBe(404);
    expect(d.body.error.code).toBe('approval_not_found');
    expect(validateResponse('/v1/turns/{id}/approvals', 'post', 404, d.body)).toEqual([]);
    expect((await decide(harness, '0190aaaa-0000-7000-8000-000000000000', { call_id: 'c', decision: 'approve' })).status).toBe(404);
  });

  it('cancel while waiting ends the turn, answers every pending call, and later decisions get 409 turn_finished', async () => {
    harness.model.push({
      output: [
        functionCall('write_file', { path: 'c1.txt', content: '1' }, { callId: 'call_c1' }),
        functionCall('write_file', { path: 'c2.txt', content: '2' }, { callId: 'call_c2' }),
      ],
    });
    const { id } = await startWaiting(harness, { input: 'two writes', agent_id: 'appr-9', tools: ['computer'], approvals: { write_file: 'always' } }, 2);
    await turnWhen(harness, id, (x) => x.status === 'waiting');
    const c = await api(harness.svc.url, 'POST', `/v1/turns/${id}/cancel`);
    expect(c.status).toBe(200);
    const t = await turnWhen(harness, id, (x) => x.status === 'cancelled');
    expect(t.pending_approvals).toEqual([]);
    // The cancel answer is the turn as GET returns it, pending_approvals included (none once cancelled).
    expect(Object.keys(c.body).sort()).toEqual(Object.keys(t).sort());
    expect([c.body.status, c.body.pending_approvals]).toEqual(['cancelled', []]);
    expect(validateResponse('/v1/turns/{id}/cancel', 'post', 200, c.body)).toEqual([]);
    const again = await api(harness.svc.url, 'POST', `/v1/turns/${id}/cancel`);
    expect(again.body).toEqual(t);
    const all = (await readSse(`${harness.svc.url}/v1/turns/${id}/events`)).events;
    expect(all.at(-1)!.json).toMatchObject({ type: 'turn.cancelled', calls: [{ call_id: 'call_c1', state: 'not_started' }, { call_id: 'call_c2', state: 'not_started' }] });
    const late = await decide(harness, id, { call_id: 'call_c1', decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('turn_finished');
    expect(existsSync(homeFile(harness, 'appr-9', 'c1.txt'))).toBe(false);
    // The stored transcript pairs every call with an output (a continuation is valid).
    harness.model.push({ output: [message('next')] });
    const next = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'go on', agent_id: 'appr-9', previous_turn_id: id });
    expect(next.body.status).toBe('completed');
    const input = harness.model.requests.at(-1)!.body.input as any[];
    expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual(['call_c1', 'call_c2']);
  });

  it('a call held for a decision after a call that ends the turn shows on the stream with the ending output; deciding it is 409 turn_finished', async () => {
    harness.model.push({
      output: [
        functionCall('clarify', { question: 'Which file?' }, { callId: 'call_q1' }),
        functionCall('write_file', { path: 'held.txt', content: 'x' }, { callId: 'call_h1' }),
      ],
    });
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'ask then write', agent_id: 'appr-10', tools: ['computer', 'clarify'], approvals: { write_file: 'always' } });
    expect(r.body).toMatchObject({ status: 'completed', stop_reason: 'clarify', output_text: 'Which file?' });
    const all = (await readSse(`${harness.svc.url}/v1/turns/${r.body.id}/events`)).events;
    for (const ev of all) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
    expect(all.filter((e) => e.json.call_id === 'call_h1').map((e) => [e.event, e.json])).toEqual([
      ['approval.requested', expect.objectContaining({ name: 'write_file' })],
      ['tool.started', expect.objectContaining({ name: 'write_file', label: 'Calling write_file', arguments: null })],
      ['tool.completed', expect.objectContaining({ name: 'write_file', label: 'Did not run write_file', is_error: true, output: 'Error: a prior tool call already ended this turn' })],
    ]);
    expect(all.at(-1)?.event).toBe('turn.completed');
    const late = await decide(harness, r.body.id, { call_id: 'call_h1', decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('turn_finished');
    expect(existsSync(homeFile(harness, 'appr-10', 'held.txt'))).toBe(false);
  });

  it('a request naming a tool the turn does not have is refused with 400', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'x', tools: ['todo'], approvals: { write_file: 'always' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'unknown_approval_tool', details: { unknown: ['write_file'], available: ['todo'] } });
    // A turn request's message speaks of this turn, not of a schedule.
    expect(r.body.error.message).toBe('approvals names "write_file", not among the tools this turn would get; those are: todo (add the family to tools, or fix the name)');
    const bad = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'x', approvals: { todo: 'sometimes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });
});
