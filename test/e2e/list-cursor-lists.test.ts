/**
 * A cursor of GET /v1/turns, /v1/jobs or /v1/workflows names the list that returned it: sent to
 * another of these lists it is 400 invalid_request saying which list it belongs to and to start
 * without it — not read as a position in that list (a page after some id, often empty). Through
 * the real service on SQLite and on Postgres, with cursors the lists themselves returned.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { describePostgres } from '../support/postgres.js';
import { routedEntries, SCHEMA, waitFor } from '../workflows/support.js';
import { api, useEngineService } from './support/service.js';
import { validateResponse } from './support/spec.js';

const LISTS = ['/v1/turns', '/v1/jobs', '/v1/workflows'] as const;

function suite(engine: 'sqlite' | 'postgres'): void {
  const h = useEngineService(engine);

  it('is refused by the other lists, naming the list it came from, and still pages its own', async () => {
    const base = h.svc.url;
    const agent = `lists-${engine}`;
    // Two jobs, made by one turn (three turns in all with the jobs' own), and two workflows.
    const main = `${engine}: make two jobs`;
    const tasks = ['one', 'two'].map((t) => `${engine} job ${t}`);
    const steps = ['a', 'b'].map((t) => `${engine} workflow ${t}`);
    h.model.push(
      ...routedEntries({
        [main]: [{ output: tasks.map((task, i) => functionCall('create_background_job', { title: `Job ${i}`, task, notify: false })) }, { output: [message('made')] }],
        ...Object.fromEntries(tasks.map((t) => [t, [{ output: [message(`${t} done`)] }]])),
        ...Object.fromEntries(steps.map((p) => [p, [{ output: [functionCall('submit_result', { result: { name: p, count: 1, tags: [] } })] }]])),
      }),
    );
    expect((await api(base, 'POST', '/v1/turns?wait=true', { input: main, agent_id: agent, tools: ['jobs'] })).body.status).toBe('completed');
    for (const p of steps) {
      const wf = await api(base, 'POST', '/v1/workflows', { agent_id: agent, title: p, tasks: [{ label: p, prompt: p, result_schema: SCHEMA }] });
      expect(wf.status, JSON.stringify(wf.body)).toBe(201);
    }
    await waitFor(async () => ((await api(base, 'GET', `/v1/jobs?agent_id=${agent}&status=stop`)).body.data.length === 2 ? true : undefined));
    await waitFor(async () => ((await api(base, 'GET', `/v1/workflows?agent_id=${agent}&status=done`)).body.data.length === 2 ? true : undefined));

    const cursors: Record<string, string> = {};
    for (const list of LISTS) {
      const first = await api(base, 'GET', `${list}?agent_id=${agent}&limit=1`);
      expect(first.status, list).toBe(200);
      expect(first.body.next_cursor, list).toEqual(expect.any(String));
      cursors[list] = first.body.next_cursor;
      // Its own list takes it back: the next page, without the first page's item.
      const next = await api(base, 'GET', `${list}?agent_id=${agent}&limit=1&cursor=${cursors[list]}`);
      expect(next.status, list).toBe(200);
      expect(next.body.data.map((x: { id: string }) => x.id), list).not.toContain(first.body.data[0].id);
    }
    for (const from of LISTS) {
      for (const to of LISTS.filter((l) => l !== from)) {
        // The same filters as the request that returned it: only the list differs.
        const res = await api(base, 'GET', `${to}?agent_id=${agent}&limit=1&cursor=${cursors[from]}`);
        const why = `was returned by GET ${from}, not GET ${to}: a cursor pages only the list that returned it; leave cursor out to start this list from its first page`;
        expect(res.status, `${from} → ${to}`).toBe(400);
        expect(res.body, `${from} → ${to}`).toEqual({ error: { code: 'invalid_request', message: `cursor ${why}`, details: [{ path: 'cursor', code: 'invalid_value', message: why }] } });
        expect(validateResponse(to, 'get', 400, res.body), `${from} → ${to}`).toEqual([]);
      }
    }
  });
}

describe('a list cursor sent to another list [sqlite]', () => suite('sqlite'));
describePostgres('a list cursor sent to another list [postgres]', () => suite('postgres'));
