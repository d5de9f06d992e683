/**
 * List endpoints refuse a cursor they never returned, instead of silently restarting at page one
 * (or at another page) — every one with the same error: the `invalid_request` details list of
 * openapi's Error.
 */
import { describe, expect, it } from 'vitest';
import { api, useScriptedService } from './support/service.js';
import { encodeQueryCursor } from '../../src/list-cursor.js';
import { validateResponse } from './support/spec.js';

const harness = useScriptedService();

describe('a foreign cursor', () => {
  it('gets one error on every list: 400 invalid_request saying to pass back next_cursor unchanged or leave cursor out, details [{path: cursor, code: invalid_format, message without the path}]', async () => {
    const schedule = await api(harness.svc.url, 'POST', '/v1/schedules', { name: 'cursors', input: 'x', when: { cron: '0 9 * * 1-5', timezone: 'UTC' } });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
    const routes: [string, string][] = [
      ['/v1/turns', '/v1/turns'],
      ['/v1/workflows', '/v1/workflows'],
      ['/v1/jobs', '/v1/jobs'],
      ['/v1/schedules', '/v1/schedules'],
      [`/v1/schedules/${schedule.body.id}/runs`, '/v1/schedules/{id}/runs'],
      ['/v1/agents/default/brain/pages', '/v1/agents/{agent_id}/brain/pages'],
    ];
    const hint = 'is not one this service returned: pass back the next_cursor of the previous page unchanged, or leave cursor out for the first page';
    for (const [route, specPath] of routes) {
      // Junk, an empty cursor and an over-long one alike.
      for (const cursor of ['junk', '', 'x'.repeat(201)]) {
        const res = await api(harness.svc.url, 'GET', `${route}?cursor=${cursor}`);
        expect(res.status, `${route} ${cursor}`).toBe(400);
        expect(res.body, `${route} ${cursor}`).toEqual({
          error: { code: 'invalid_request', message: `cursor ${hint}`, details: [{ path: 'cursor', code: 'invalid_format', message: hint }] },
        });
        expect(validateResponse(specPath, 'get', 400, res.body), route).toEqual([]);
      }
    }
  });
});

describe('list cursors', () => {
  for (const [route, list] of [['/v1/turns', 'turns'], ['/v1/workflows', 'workflows']] as const) {
    it(`${route} answers 400 with the envelope for a cursor it never returned`, async () => {
      const res = await api(harness.svc.url, 'GET', `${route}?cursor=garbage`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_request' } });
      expect(JSON.stringify(res.body)).toContain('cursor is not one this service returned');
    });

    it(`${route} takes a cursor back with the filters it was made for, and refuses it with others or as a bare id`, async () => {
      const id = '0190a000-0000-7000-8000-000000000000';
      const cursor = encodeQueryCursor(list, id, { agent_id: 'cursor-a', status: undefined });
      const same = await api(harness.svc.url, 'GET', `${route}?agent_id=cursor-a&cursor=${cursor}`);
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ data: [], next_cursor: null });
      const other = 'was returned for a list with another agent_id or status: pass it back with the same agent_id and status as the request that returned it, or leave cursor out for the first page';
      for (const query of ['agent_id=cursor-b', 'agent_id=cursor-a&status=failed', '']) {
        const res = await api(harness.svc.url, 'GET', `${route}?${query}&cursor=${cursor}`);
        expect(res.status, query).toBe(400);
        expect(res.body.error, query).toEqual({ code: 'invalid_request', message: `cursor ${other}`, details: [{ path: 'cursor', code: 'invalid_value', message: other }] });
      }
      // A bare id (the cursor of old) is not one this service returns.
      const bare = await api(harness.svc.url, 'GET', `${route}?cursor=${id}`);
      expect(bare.status).toBe(400);
      expect(JSON.stringify(bare.body)).toContain('cursor is not one this service returned');
    });
    it(`${route} refuses a cursor of its own edited by hand as not one it returned, not as one of other filters or another position`, async () => {
      const hint = 'is not one this service returned: pass back the next_cursor of the previous page unchanged, or leave cursor out for the first page';
      const foreign = { code: 'invalid_request', message: `cursor ${hint}`, details: [{ path: 'cursor', code: 'invalid_format', message: hint }] };
      const cursor = encodeQueryCursor(list, '0190a000-0000-7000-8000-0000000000ab', { agent_id: 'cursor-a', status: undefined });
      // Upper-cased (a proxy or a user rewriting it), and one character of the id changed: both decode
      // to a list and filters, but the checksum over the whole cursor fails.
      const editedId = `${cursor.slice(0, 4)}${cursor[4] === 'A' ? 'B' : 'A'}${cursor.slice(5)}`;
      for (const edited of [cursor.toUpperCase(), editedId]) {
        expect(edited).not.toBe(cursor);
        const res = await api(harness.svc.url, 'GET', `${route}?agent_id=cursor-a&cursor=${edited}`);
        expect(res.status, edited).toBe(400);
        expect(res.body.error, edited).toEqual(foreign);
      }
    });

    it(`${route} takes back a cursor of the previous format (no checksum) with its own filters, refuses it with other filters as not one it returned, and on another list as that list's`, async () => {
      const body = Buffer.from(encodeQueryCursor(list, '0190a000-0000-7000-8000-000000000000', { agent_id: 'cursor-a', status: undefined }), 'base64url').subarray(0, 25);
      const old = body.toString('base64url');
      expect(old).toHaveLength(34);
      const same = await api(harness.svc.url, 'GET', `${route}?agent_id=cursor-a&cursor=${old}`);
      expect(same.status, JSON.stringify(same.body)).toBe(200);
      const hint = 'is not one this service returned: pass back the next_cursor of the previous page unchanged, or leave cursor out for the first page';
      for (const query of ['agent_id=cursor-b', '', 'agent_id=cursor-a&status=failed']) {
        const res = await api(harness.svc.url, 'GET', `${route}?${query}&cursor=${old}`);
        expect(res.status, query).toBe(400);
        expect(res.body.error, query).toEqual({ code: 'invalid_request', message: `cursor ${hint}`, details: [{ path: 'cursor', code: 'invalid_format', message: hint }] });
      }
      // Another list says whose cursor it is and what to do, as it does for a cursor with a checksum.
      const other = route === '/v1/turns' ? '/v1/workflows' : '/v1/turns';
      const why = `was returned by GET ${route}, not GET ${other}: a cursor pages only the list that returned it; leave cursor out to start this list from its first page`;
      const elsewhere = await api(harness.svc.url, 'GET', `${other}?agent_id=cursor-a&cursor=${old}`);
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.error).toEqual({ code: 'invalid_request', message: `cursor ${why}`, details: [{ path: 'cursor', code: 'invalid_value', message: why }] });
      expect(validateResponse(other, 'get', 400, elsewhere.body)).toEqual([]);
    });
  }

  describe('brain pages', () => {
    const route = '/v1/agents/cursors/brain/pages';

    it('answers 400 with the envelope for a cursor it never returned (a slug or a non-slug alike)', async () => {
      for (const cursor of ['garbage', 'runbook', '%25%25', 'cnVu Ym9vaw']) {
        const res = await api(harness.svc.url, 'GET', `${route}?cursor=${cursor}`);
        expect(res.status, cursor).toBe(400);
        expect(res.body).toMatchObject({ error: { code: 'invalid_request', details: [{ path: 'cursor' }] } });
        expect(JSON.stringify(res.body)).toContain('cursor is not one this service returned');
      }
    });

    it('pages with the cursors it returns', async () => {
      for (const slug of ['a', 'b', 'c']) await api(harness.svc.url, 'PUT', `${route}/${slug}`, { title: slug, markdown: slug });
      const slugs: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; body: any } = await api(harness.svc.url, 'GET', `${route}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        slugs.push(...res.body.data.map((p: { slug: string }) => p.slug));
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(slugs).toEqual(['a', 'b', 'c']);
    });
  });
});
