/**
 * Source of a small program written against the client generated from openapi.yaml
 * (openapi-typescript types + openapi-fetch). generated-client.test.ts writes it next to the
 * generated `openapi.ts`, type-checks it with the TypeScript compiler (so a spec that generators
 * cannot turn into usable types fails the test), then runs it against the live service.
 * Kept as text because the generated types exist only at test time.
 */
export const USAGE_SOURCE = `
import createClient from 'openapi-fetch';
import type { paths } from './openapi.js';

export interface Outcome {
  createdStatus: number;
  id: string;
  eventsLink: string;
  gotStatus: string;
  cancelledStatus: string;
  missingStatus: number;
  missingCode: string;
  invalidStatus: number;
  invalidCode: string;
  scheduleStatus: number;
  scheduleMetadata: unknown;
}

/**
 * The README's minimal requests (only \`input\`; a list without parameters) — compiled, not run:
 * fields with server defaults (agent_id, cancel_on_disconnect, limit…) must be optional.
 */
export async function readmeMinimal(baseUrl: string): Promise<void> {
  const client = createClient<paths>({ baseUrl });
  await client.POST('/v1/turns', { body: { input: 'What is 2 + 2?' } });
  await client.POST('/v1/turns', { body: { input: [{ role: 'user', content: 'hi' }] } });
  await client.GET('/v1/turns');
  await client.POST('/v1/tools/preview', { body: {} });
  await client.POST('/v1/workflows', { body: { title: 't', tasks: [{ label: 'a', prompt: 'p', result_schema: { type: 'string' } }] } });
}

/**
 * Create a turn, read it, cancel it, provoke two errors, and create a schedule with free-form
 * metadata — all through the typed client.
 */
export async function createGetCancel(baseUrl: string, token: string): Promise<Outcome> {
  const client = createClient<paths>({ baseUrl, headers: { authorization: 'Bearer ' + token } });

  const created = await client.POST('/v1/turns', {
    body: { input: 'hello from a generated client', tools: ['todo'], agent_id: 'client-test', metadata: { via: 'openapi-fetch' } },
  });
  if (!created.data) throw new Error('create failed: ' + JSON.stringify(created.error));
  // POST /v1/turns answers 202 (accepted, with links), 200 JSON (?wait=true) or 200 SSE: narrow.
  const accepted = created.data;
  if (!('links' in accepted) || !accepted.links) throw new Error('expected the 202 body with links');
  const id: string = accepted.id;
  const eventsLink: string = accepted.links.events;

  const got = await client.GET('/v1/turns/{id}', { params: { path: { id } } });
  if (!got.data) throw new Error('get failed: ' + JSON.stringify(got.error));
  const gotStatus: string = got.data.status;

  const cancelled = await client.POST('/v1/turns/{id}/cancel', { params: { path: { id } } });
  if (!cancelled.data) throw new Error('cancel failed: ' + JSON.stringify(cancelled.error));
  const cancelledStatus: string = cancelled.data.status;

  const missing = await client.GET('/v1/turns/{id}', { params: { path: { id: 'no-such-turn' } } });
  const invalid = await client.POST('/v1/turns', { body: { input: 'x', agent_id: 'not valid!' } });

  const schedule = await client.POST('/v1/schedules', {
    body: { name: 'from a generated client', when: { after: { value: 1, unit: 'hour' } }, input: 'x', agent_id: 'client-test', metadata: { via: 'openapi-fetch', n: 1 } },
  });
  if (!schedule.data) throw new Error('schedule create failed: ' + JSON.stringify(schedule.error));

  return {
    createdStatus: created.response.status,
    id,
    eventsLink,
    gotStatus,
    cancelledStatus,
    missingStatus: missing.response.status,
    missingCode: missing.error ? missing.error.error.code : '',
    invalidStatus: invalid.response.status,
    invalidCode: invalid.error ? invalid.error.error.code : '',
    scheduleStatus: schedule.response.status,
    scheduleMetadata: schedule.data.metadata,
  };
}

export interface ApprovalOutcome {
  waitingStatus: string;
  pendingCallId: string;
  pendingLabel: string | null;
  decidedStatus: string;
  conflictStatus: number;
  conflictCode: string;
  finalStatus: string;
  listed: string[];
}

/**
 * A turn whose todo call needs approval: wait for \`waiting\`, read \`pending_approvals\`, approve
 * it, try the other decision (409), wait for the end and list the approvals — typed throughout.
 */
export async function approveFlow(baseUrl: string, token: string): Promise<ApprovalOutcome> {
  const client = createClient<paths>({ baseUrl, headers: { authorization: 'Bearer ' + token } });
  const created = await client.POST('/v1/turns', { body: { input: 'plan with approval', tools: ['todo'], approvals: { todo: 'always' } } });
  if (!created.data || !('links' in created.data)) throw new Error('create failed: ' + JSON.stringify(created.error));
  const id: string = created.data.id;
  const until = async (ok: (status: string) => boolean) => {
    for (let i = 0; i < 400; i++) {
      const got = await client.GET('/v1/turns/{id}', { params: { path: { id } } });
      if (got.data && ok(got.data.status)) return got.data;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('turn did not reach the status');
  };
  const waiting = await until((s) => s === 'waiting');
  const pending = (waiting.pending_approvals ?? [])[0];
  if (!pending) throw new Error('no pending approval');
  const decided = await client.POST('/v1/turns/{id}/approvals', { params: { path: { id } }, body: { call_id: pending.call_id, decision: 'approve' } });
  if (!decided.data) throw new Error('decision failed: ' + JSON.stringify(decided.error));
  const conflict = await client.POST('/v1/turns/{id}/approvals', { params: { path: { id } }, body: { call_id: pending.call_id, decision: 'reject', reason: 'changed my mind' } });
  const done = await until((s) => s === 'completed' || s === 'failed' || s === 'cancelled');
  const list = await client.GET('/v1/turns/{id}/approvals', { params: { path: { id } } });
  return {
    waitingStatus: waiting.status,
    pendingCallId: pending.call_id,
    pendingLabel: pending.label,
    decidedStatus: decided.data.status,
    conflictStatus: conflict.response.status,
    conflictCode: conflict.error ? conflict.error.error.code : '',
    finalStatus: done.status,
    listed: (list.data?.data ?? []).map((a) => a.call_id + ':' + a.status),
  };
}
`;
