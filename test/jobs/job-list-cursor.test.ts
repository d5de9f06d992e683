/**
 * GET /v1/jobs pages through the real service (jobs made by a scripted turn's
 * create_background_job calls): the next_cursor carries the filters of its request, so paging with
 * the same agent_id and status walks every job once, and the cursor sent with another agent_id or
 * status (or without them) is 400 invalid_request naming what differs — not a page of another
 * list, often empty. A bare job id, the cursor of old, is refused like any foreign cursor.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { validateResponse } from '../e2e/support/spec.js';
import { job, routedEntries, waitFor } from './support.js';

const harness = useScriptedService();

describe('the GET /v1/jobs cursor', () => {
  it('pages with the same filters and is refused with others', async () => {
    const base = harness.svc.url;
    const main = 'list-cursor: make three jobs';
    const tasks = ['one', 'two', 'three'].map((t) => `list-cursor task ${t}`);
    harness.model.push(
      ...routedEntries({
        [main]: [{ output: tasks.map((task, i) => functionCall('create_background_job', { title: `Job ${i}`, task, notify: false })) }, { output: [message('made')] }],
        ...Object.fromEntries(tasks.map((t) => [t, [{ output: [message(`${t} done`)] }]])),
      }),
    );
    expect((await api(base, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'cursor-a', tools: ['jobs'] })).body.status).toBe('completed');
    const all = (await api(base, 'GET', '/v1/jobs?agent_id=cursor-a')).body.data.map((j: any) => j.id);
    expect(all).toHaveLength(3);
    for (const id of all) await waitFor(async () => ((await job(base, id)).status === 'succeeded' ? true : undefined));

    // Same filters: every job once, newest first.
    const seen: string[] = [];
    let cursor: string | null = null;
    let first: string | null = null;
    do {
      const res: { status: number; body: any } = await api(base, 'GET', `/v1/jobs?agent_id=cursor-a&status=stop&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(validateResponse('/v1/jobs', 'get', 200, res.body)).toEqual([]);
      seen.push(...res.body.data.map((j: any) => j.id));
      cursor = res.body.next_cursor;
      first ??= cursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(first).toMatch(/^[A-Za-z0-9_-]{39}$/);

    // Other filters: refused, saying what to do.
    const hint = 'was returned for a list with another agent_id or status: pass it back with the same agent_id and status as the request that returned it, or leave cursor out for the first page';
    for (const query of ['agent_id=cursor-b&status=stop', 'agent_id=cursor-a&status=live', 'agent_id=cursor-a', 'status=stop', '']) {
      const res = await api(base, 'GET', `/v1/jobs?${query}&limit=2&cursor=${first}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({ error: { code: 'invalid_request', message: `cursor ${hint}`, details: [{ path: 'cursor', code: 'invalid_value', message: hint }] } });
      expect(validateResponse('/v1/jobs', 'get', 400, res.body)).toEqual([]);
    }
    // A bare job id is not a cursor this service returns.
    const bare = await api(base, 'GET', `/v1/jobs?agent_id=cursor-a&status=stop&cursor=${all[0]}`);
    expect(bare.status).toBe(400);
    expect(bare.body.error.message).toMatch(/^cursor is not one this service returned/);
  });
});
