/** List endpoints refuse a cursor they never returned, instead of silently restarting at page one. */
import { describe, expect, it } from 'vitest';
import { api, useScriptedService } from './support/service.js';

const harness = useScriptedService();

describe('list cursors', () => {
  for (const route of ['/v1/turns', '/v1/workflows']) {
    it(`${route} answers 400 with the envelope for a cursor it never returned`, async () => {
      const res = await api(harness.svc.url, 'GET', `${route}?cursor=garbage`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_request' } });
      expect(JSON.stringify(res.body)).toContain('cursor is not one this service returned');
    });

    it(`${route} accepts a well-formed cursor`, async () => {
      const res = await api(harness.svc.url, 'GET', `${route}?cursor=0190a000-0000-7000-8000-000000000000`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ data: [], next_cursor: null });
    });
  }
});
