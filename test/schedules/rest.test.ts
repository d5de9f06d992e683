/**
 * /v1/schedules over the real Fastify server on a loopback port: CRUD, filters, pagination,
 * idempotency, and every validation error in the `{error: {code, message, details}}` envelope;
 * a name is one line of plain text with a visible character (a bidi control is refused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { validateResponse } from '../e2e/support/spec.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

let svc: TestService;
let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer([]);
  svc = await startTestService({ modelBaseURL: model.baseURL, env: { SCHEDULE_MAX_PER_AGENT: '3', SCHEDULE_MIN_INTERVAL_S: '300' } });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

const body = (over: Record<string, unknown> = {}) => ({
  name: 'daily report',
  when: { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
  input: 'Write the daily report',
  ...over,
});

/** The spec path template of a concrete schedules path. */
function specPath(path: string): string {
  const p = path.split('?')[0];
  if (p === '/v1/schedules') return p;
  return p.endsWith('/runs') ? '/v1/schedules/{id}/runs' : '/v1/schedules/{id}';
}

/** Call the API and check the response against openapi.yaml. */
async function call(method: string, path: string, payload?: unknown, headers: Record<string, string> = {}) {
  const r = await api(svc.url, method, path, payload, headers);
  expect(validateResponse(specPath(path), method, r.status, r.body), `${method} ${path} → ${r.status}`).toEqual([]);
  return r;
}

async function expectError(method: string, path: string, payload: unknown, status: number, code: string, headers: Record<string, string> = {}) {
  const r = await call(method, path, payload, headers);
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  expect(typeof r.body.error.message).toBe('string');
  expect(r.body.error.message.length).toBeGreaterThan(5);
  return r.body.error;
}

describe('/v1/schedules CRUD', () => {
  it('creates, reads, lists, updates and deletes a schedule', async () => {
    const created = await call('POST', '/v1/schedules', body({ agent_id: 'crud', tools: ['todo', 'schedule'], instructions: 'Be brief' }));
    expect(created.status).toBe(201);
    const s = created.body;
    expect(created.headers.get('location')).toBe(`/v1/schedules/${s.id}`);
    expect(s).toMatchObject({
      agent_id: 'crud',
      name: 'daily report',
      status: 'active',
      when: { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      input: 'Write the daily report',
      instructions: 'Be brief',
      tools: ['todo', 'schedule'],
      run_count: 0,
      last_run_at: null,
      created_by: { type: 'api' },
      links: { self: `/v1/schedules/${s.id}`, runs: `/v1/schedules/${s.id}/runs` },
    });
    expect(Date.parse(s.next_run_at)).toBeGreaterThan(Date.now());

    const got = await call('GET', `/v1/schedules/${s.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(s);

    const paused = await call('PATCH', `/v1/schedules/${s.id}`, { paused: true, name: 'renamed' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', name: 'renamed', next_run_at: null });
    const resumed = await call('PATCH', `/v1/schedules/${s.id}`, { paused: false });
    expect(resumed.body.status).toBe('active');
    expect(resumed.body.next_run_at).not.toBeNull();

    const runs = await call('GET', `/v1/schedules/${s.id}/runs`);
    expect(runs).toMatchObject({ status: 200, body: { data: [], next_cursor: null } });

    const del = await call('DELETE', `/v1/schedules/${s.id}`);
    expect(del).toMatchObject({ status: 200, body: { id: s.id, deleted: true } });
    await expectError('GET', `/v1/schedules/${s.id}`, undefined, 404, 'schedule_not_found');
    await expectError('DELETE', `/v1/schedules/${s.id}`, undefined, 404, 'schedule_not_found');
    await expectError('GET', `/v1/schedules/${s.id}/runs`, undefined, 404, 'schedule_not_found');
    await expectError('PATCH', `/v1/schedules/${s.id}`, { name: 'x' }, 404, 'schedule_not_found');
  });

  it('defaults agent_id and tools from the server config', async () => {
    const r = await call('POST', '/v1/schedules', body({ when: { after: { value: 2, unit: 'day' } } }));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ agent_id: 'default', tools: svc.services.config.DEFAULT_TOOLS, when: { after: { value: 2, unit: 'day' } } });
    await api(svc.url, 'DELETE', `/v1/schedules/${r.body.id}`);
  });

  it('reads null for any optional top-level field of POST as the field left out; a nested null and when: null are refused', async () => {
    const nulls = { agent_id: null, tools: null, brain: null, paused: null, instructions: null, model: null, max_steps: null, metadata: null, webhook: null, approvals: null };
    const r = await call('POST', '/v1/schedules', body({ name: 'nulls', when: { after: { value: 3, unit: 'day' } }, ...nulls }));
    expect(r.status).toBe(201);
    const plain = await call('POST', '/v1/schedules', body({ name: 'nulls', when: { after: { value: 3, unit: 'day' } } }));
    const shape = (s: Record<string, unknown>) => ({ ...s, id: undefined, created_at: undefined, updated_at: undefined, next_run_at: undefined, links: undefined });
    expect(shape(r.body)).toEqual(shape(plain.body));
    expect(r.body).toMatchObject({ agent_id: 'default', tools: svc.services.config.DEFAULT_TOOLS, brain: false, status: 'active' });
    for (const id of [r.body.id, plain.body.id]) await api(svc.url, 'DELETE', `/v1/schedules/${id}`);
    const nested = await expectError('POST', '/v1/schedules', body({ agent_id: 'nulls', webhook: { url: 'https://example.com/h', events: null } }), 400, 'invalid_request');
    expect(nested.details).toEqual([expect.objectContaining({ path: 'webhook.events', code: 'invalid_type' })]);
    await expectError('POST', '/v1/schedules', body({ agent_id: 'nulls', when: null }), 400, 'invalid_when');
  });

  it('PATCH: null clears instructions, model, max_steps, metadata, webhook, approvals; tools, brain, paused, name refuse it', async () => {
    const id = (await call('POST', '/v1/schedules', body({ agent_id: 'patch-nulls', instructions: 'Be brief', model: 'm1', max_steps: 7, metadata: { a: 1 } }))).body.id;
    const cleared = await call('PATCH', `/v1/schedules/${id}`, { instructions: null, model: null, max_steps: null, metadata: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ instructions: null, model: null, max_steps: null, metadata: null });
    for (const field of ['tools', 'brain', 'paused', 'name']) {
      const err = await expectError('PATCH', `/v1/schedules/${id}`, { [field]: null }, 400, 'invalid_request');
      expect(err.details[0].path, field).toBe(field);
    }
  });

  it('lists newest first, filtered by agent_id and status, with cursor pagination', async () => {
    const ids: string[] = [];
    for (const [name, paused] of [['a', false], ['b', true], ['c', false]] as const) {
      ids.push((await call('POST', '/v1/schedules', body({ name, agent_id: 'lister', paused }))).body.id);
    }
    await call('POST', '/v1/schedules', body({ name: 'other', agent_id: 'someone' }));
    const p1 = await call('GET', '/v1/schedules?agent_id=lister&limit=2');
    expect(p1.status).toBe(200);
    expect(p1.body.data.map((s: { name: string }) => s.name)).toEqual(['c', 'b']);
    const p2 = await call('GET', `/v1/schedules?agent_id=lister&limit=2&cursor=${p1.body.next_cursor}`);
    expect(p2.body).toMatchObject({ data: [{ id: ids[0] }], next_cursor: null });
    const paused = await call('GET', '/v1/schedules?agent_id=lister&status=paused');
    expect(paused.body.data.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
    await expectError('GET', '/v1/schedules?status=sleeping', undefined, 400, 'invalid_request');
    await expectError('GET', '/v1/schedules?agent_id=bad%20id', undefined, 400, 'invalid_request');
    await expectError('GET', '/v1/schedules?limit=0', undefined, 400, 'invalid_request');
    await expectError('GET', '/v1/schedules?cursor=not-a-cursor', undefined, 400, 'invalid_request');
  });

  it('replays an Idempotency-Key with the same body and refuses it with another', async () => {
    const h = { 'idempotency-key': 'sched-key-1' };
    const a = await call('POST', '/v1/schedules', body({ agent_id: 'idem' }), h);
    const b = await call('POST', '/v1/schedules', body({ agent_id: 'idem' }), h);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).toBe(a.body.id);
    await expectError('POST', '/v1/schedules', body({ agent_id: 'idem', input: 'different' }), 409, 'idempotency_key_reused', h);
  });

  it('treats the tool families as a set when comparing an Idempotency-Key retry: another order replays, another set is refused', async () => {
    const h = { 'idempotency-key': 'sched-key-tools' };
    const a = await call('POST', '/v1/schedules', body({ agent_id: 'idem-tools', tools: ['todo', 'web'] }), h);
    const b = await call('POST', '/v1/schedules', body({ agent_id: 'idem-tools', tools: ['web', 'todo'] }), h);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).toBe(a.body.id);
    await expectError('POST', '/v1/schedules', body({ agent_id: 'idem-tools', tools: ['todo'] }), 409, 'idempotency_key_reused', h);
  });
});

describe('/v1/schedules validation errors', () => {
  const future = new Date(Date.now() + 86_400_000).toISOString();

  it.each([
    ['neither when form', 'invalid_when', { when: {} }],
    ['no when at all', 'invalid_when', { when: undefined }],
    ['both at and cron', 'invalid_when', { when: { at: future, cron: '0 9 * * *', timezone: 'UTC' } }],
    ['at and after', 'invalid_when', { when: { at: future, after: { value: 1, unit: 'hour' } } }],
    ['at without offset', 'invalid_at', { when: { at: '2030-01-01T09:00:00' } }],
    ['at in the past', 'at_in_past', { when: { at: '2020-01-01T09:00:00Z' } }],
    ['after with a bad unit', 'invalid_after', { when: { after: { value: 1, unit: 'fortnight' } } }],
    ['after with zero', 'invalid_after', { when: { after: { value: 0, unit: 'hour' } } }],
    ['bad cron expression', 'invalid_cron', { when: { cron: '0 25 * * *', timezone: 'UTC' } }],
    ['cron that never fires', 'invalid_cron', { when: { cron: '0 0 31 2 *', timezone: 'UTC' } }],
    ['unknown time zone', 'unknown_timezone', { when: { cron: '0 9 * * *', timezone: 'Europe/Atlantis' } }],
    ['a UTC offset as time zone', 'unknown_timezone', { when: { cron: '0 9 * * *', timezone: '+02:00' } }],
    ['cron without time zone', 'timezone_required', { when: { cron: '0 9 * * *' } }],
    ['too-frequent cron', 'cron_too_frequent', { when: { cron: '*/1 * * * *', timezone: 'UTC' } }],
    ['missing name', 'invalid_request', { name: undefined }],
    ['empty input', 'invalid_request', { input: '' }],
    ['unknown field', 'invalid_request', { colour: 'blue' }],
    ['bad agent_id', 'invalid_request', { agent_id: 'no spaces allowed' }],
    ['unknown tool family', 'invalid_request', { tools: ['teleport'] }],
  ])('POST refuses %s with 400 %s', async (_label, code, over) => {
    const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', ...over }), 400, code);
    if (code === 'cron_too_frequent') {
      expect(err.details).toMatchObject({ interval_s: 60, min_interval_s: 300 });
      expect(err.message).toContain('the minimum interval is 300 s: send a cron whose slots are at least 300 s apart, e.g. "*/5 * * * *"');
    }
    if (code === 'invalid_request') expect(Array.isArray(err.details)).toBe(true);
    // Every refusal carries details: the values at fault (a `when` rule names what it read).
    else expect(err.details, code).toEqual(expect.any(Object));
    if (code === 'timezone_required') expect(err.details).toEqual({ cron: '0 9 * * *', missing: ['timezone'] });
    if (code === 'invalid_when' && 'when' in over && over.when) expect(err.details).toMatchObject({ forms: ['at', 'after', 'cron'] });
  });

  it('shows a huge when.cron, when.timezone or when.at by its start and its length, so the refusal stays small', async () => {
    const cron = `${'x'.repeat(900_000)} * * * *`;
    const r = await api(svc.url, 'POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron, timezone: 'UTC' } }));
    expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 400, code: 'invalid_cron' });
    expect(r.body.error.message).toMatch(new RegExp(`^when\\.cron "${'x'.repeat(80)}"… \\(900008 characters\\) is not a valid cron expression: `));
    expect(r.body.error.details).toEqual({ cron: `${'x'.repeat(80)}… (900008 characters)` });
    expect(JSON.stringify(r.body).length).toBeLessThan(2000);
    for (const [when, code, key] of [
      [{ cron: '0 9 * * *', timezone: 'Z'.repeat(50_000) }, 'unknown_timezone', 'timezone'],
      [{ cron: '0 9 * * *', timezone: `${' '.repeat(50_000)}UTC` }, 'unknown_timezone', 'timezone'],
      [{ at: `2030-01-15T09:00:00${'x'.repeat(50_000)}` }, 'invalid_at', 'at'],
      [{ cron: `${'\u009b'.repeat(50_000)}`, timezone: 'UTC' }, 'invalid_cron', 'cron'],
      // Croner's own reason quotes the field: cut too.
      [{ cron: `0 0 L${'a'.repeat(50_000)} * *`, timezone: 'UTC' }, 'invalid_cron', 'cron'],
      [{ cron: `0 0 * * MON#${'9'.repeat(50_000)}`, timezone: 'UTC' }, 'invalid_cron', 'cron'],
    ] as const) {
      const e = await api(svc.url, 'POST', '/v1/schedules', body({ agent_id: 'validation', when }));
      expect({ status: e.status, code: e.body.error.code }, code).toEqual({ status: 400, code });
      expect(e.body.error.message, code).toContain('characters)');
      expect(e.body.error.details[key], code).toMatch(/… \(\d+ characters\)$/);
      expect(JSON.stringify(e.body), code).not.toMatch(/\u009b/);
      expect(JSON.stringify(e.body).length, code).toBeLessThan(2000);
    }
  });

  it('says why a cron that never fires does not, and what to do: a day none of its months has', async () => {
    for (const [cron, why] of [
      ['0 0 30 2 *', 'February has no day 30: choose a day that exists in the month given'],
      ['0 0 31 4,jun *', 'April and June have no day 31: choose a day that exists in the months given'],
      ['0 0 0 30-31 FEB *', 'February has no day 30 or 31: choose a day that exists in the month given'],
      ['0 0 30-31 2 *', 'February has no day 30 or 31: choose a day that exists in the month given'],
      ['0 0 31,30 2 *', 'February has no day 30 or 31: choose a day that exists in the month given'],
    ]) {
      const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron, timezone: 'UTC' } }), 400, 'invalid_cron');
      expect(err.message).toBe(`when.cron "${cron}" never fires: ${why}`);
      expect(err.details).toEqual({ cron });
    }
  });

  it('stores a time zone given in any case in its canonical spelling, and refuses a UTC offset saying to use an IANA name', async () => {
    const created = await call('POST', '/v1/schedules', body({ agent_id: 'zones', when: { cron: '0 9 * * *', timezone: 'europe/berlin' } }));
    expect(created.status).toBe(201);
    expect(created.body.when).toEqual({ cron: '0 9 * * *', timezone: 'Europe/Berlin' });
    expect((await call('GET', `/v1/schedules/${created.body.id}`)).body.when).toEqual({ cron: '0 9 * * *', timezone: 'Europe/Berlin' });
    const patched = await call('PATCH', `/v1/schedules/${created.body.id}`, { when: { cron: '30 7 * * *', timezone: 'AMERICA/NEW_YORK' } });
    expect(patched.body.when).toEqual({ cron: '30 7 * * *', timezone: 'America/New_York' });

    const offset = await expectError('POST', '/v1/schedules', body({ agent_id: 'zones', when: { cron: '0 9 * * *', timezone: '+02:00' } }), 400, 'unknown_timezone');
    expect(offset).toEqual({
      code: 'unknown_timezone',
      message: 'when.timezone "+02:00" is a UTC offset, not a time zone: an offset does not follow daylight saving time. Use the IANA name of the place, such as "Europe/Berlin" or "America/New_York" (or "Etc/GMT-2" for UTC+02:00 all year)',
      details: { timezone: '+02:00' },
    });
    await expectError('PATCH', `/v1/schedules/${created.body.id}`, { when: { cron: '0 9 * * *', timezone: '-05:00' } }, 400, 'unknown_timezone');
    expect((await call('GET', `/v1/schedules/${created.body.id}`)).body.when.timezone).toBe('America/New_York');
    expect((await call('GET', '/v1/schedules?agent_id=zones')).body.data).toHaveLength(1);
  });

  it('stores a link name such as asia/kolkata in IANA spelling, not the zone Intl resolves it to', async () => {
    // Intl resolves Asia/Kolkata to Asia/Calcutta and lists only ICU's primary ids: the case is
    // fixed from the IANA names, the name the client meant is kept.
    const cases: [string, string][] = [
      ['asia/kolkata', 'Asia/Kolkata'],
      ['us/eastern', 'US/Eastern'],
      ['europe/kyiv', 'Europe/Kyiv'],
      ['etc/utc', 'Etc/UTC'],
      ['america/argentina/buenos_aires', 'America/Argentina/Buenos_Aires'],
      ['gb', 'GB'],
      ['nz', 'NZ'],
      ['cet', 'CET'],
      ['ASIA/KOLKATA', 'Asia/Kolkata'],
      ['Asia/Calcutta', 'Asia/Calcutta'],
    ];
    const created = await call('POST', '/v1/schedules', body({ agent_id: 'zone-links', when: { cron: '0 9 * * *', timezone: cases[0][0] } }));
    expect(created.status).toBe(201);
    expect(created.body.when.timezone).toBe(cases[0][1]);
    for (const [sent, stored] of cases) {
      const patched = await call('PATCH', `/v1/schedules/${created.body.id}`, { when: { cron: '0 9 * * *', timezone: sent } });
      expect([sent, patched.status, patched.body.when.timezone]).toEqual([sent, 200, stored]);
      expect((await call('GET', `/v1/schedules/${created.body.id}`)).body.when.timezone).toBe(stored);
    }
  });

  it('lists when as required (not when?) in an unknown-field message, and a missing when is still invalid_when', async () => {
    const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', colour: 'blue' }), 400, 'invalid_request');
    expect(err.message).toContain('accepted fields are name, input, agent_id?, when, instructions?');
    const missing = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: undefined }), 400, 'invalid_when');
    expect(missing.details).toEqual({ got: 'missing', forms: ['at', 'after', 'cron'] });
    // PATCH changes any subset: when stays optional there.
    const id = (await call('POST', '/v1/schedules', body({ agent_id: 'validation-patch' }))).body.id;
    expect((await expectError('PATCH', `/v1/schedules/${id}`, { colour: 'blue' }, 400, 'invalid_request')).message).toContain('when?');
  });

  it('says why a cron expression is invalid in one sentence, without a doubled period', async () => {
    const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '*/0 * * * *', timezone: 'UTC' } }), 400, 'invalid_cron');
    expect(err.message).toMatch(
      /^when\.cron "\*\/0 \* \* \* \*" is not a valid cron expression: [^\n]*[^.]\. Use 5 fields "minute hour day-of-month month day-of-week", e\.g\. "0 9 \* \* 1-5", or 6 with seconds first "second minute hour day-of-month month day-of-week", e\.g\. "30 0 9 \* \* 1-5"$/,
    );
    expect(err.message).not.toContain('..');
    expect(err.message).not.toContain('CronPattern');
  });

  it('says how many fields a cron expression has when it has neither 5 nor 6, in the service\'s words, not croner\'s', async () => {
    const forms =
      'Use 5 fields "minute hour day-of-month month day-of-week", e.g. "0 9 * * 1-5", or 6 with seconds first "second minute hour day-of-month month day-of-week", e.g. "30 0 9 * * 1-5"';
    const cases: [string, string][] = [
      ['0 9 * *', 'it has 4 fields'],
      ['0 0 0 9 * * 1-5', 'it has 7 fields (a year field is not taken)'],
      ['0 0 0 9 * * 1-5 2026', 'it has 8 fields'],
      ['nope', 'it has 1 field'],
      ['@dailyx', '"@dailyx" is none of the nicknames @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly'],
    ];
    for (const [cron, reason] of cases) {
      const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron, timezone: 'UTC' } }), 400, 'invalid_cron');
      expect(err).toEqual({ code: 'invalid_cron', message: `when.cron "${cron}" is not a valid cron expression: ${reason}. ${forms}`, details: { cron } });
    }
  });

  it('names the cron field at fault with what was written in it and the values it takes', async () => {
    const cases: [string, string][] = [
      ['61 * * * *', 'the minute field "61" is out of range: it takes 0–59'],
      ['0 9 32 * *', 'the day-of-month field "32" is out of range: it takes 1–31'],
      ['0 9 * 13 *', 'the month field "13" is out of range: it takes 1–12 or JAN–DEC'],
      ['0 0 25 * * *', 'the hour field "25" is out of range: it takes 0–23'],
      ['0 9 * * mon-xyz', 'the day-of-week field "mon-xyz" has a character a cron field does not take: it takes 0–7 (0 and 7 are Sunday) or SUN–SAT, with *, ",", "-", "/", L and #'],
      ['0 9 x * *', 'the day-of-month field "x" has a character a cron field does not take: it takes 1–31, with *, ",", "-", "/", L and W'],
      ['0 x 9 * * *', 'the minute field "x" has a character a cron field does not take: it takes 0–59, with *, ",", "-" and "/"'],
      ['0,,5 * * * *', 'the minute field "0,,5" has an empty item (a comma too many)'],
    ];
    for (const [cron, reason] of cases) {
      const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron, timezone: 'UTC' } }), 400, 'invalid_cron');
      expect(err.message.startsWith(`when.cron "${cron}" is not a valid cron expression: ${reason}. Use 5 fields`), err.message).toBe(true);
    }
  });

  it('quotes a refused cron with its own quotes and backslashes escaped, so the echoed value is unambiguous', async () => {
    const cron = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '0 9 * * "1\\', timezone: 'UTC' } }), 400, 'invalid_cron');
    expect(cron.message).toContain('when.cron "0 9 * * \\"1\\\\" is not a valid cron expression: the day-of-week field "\\"1\\\\" has a character');
    expect(cron.details).toEqual({ cron: '0 9 * * "1\\' });
  });

  it('escapes control and bidi characters of a refused cron, at or after value in message and details', async () => {
    const cron = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '0 9 * * \u202e1', timezone: 'UTC' } }), 400, 'invalid_cron');
    expect(cron.message).toContain('when.cron "0 9 * * \\u202E1" is not a valid cron expression: the day-of-week field "\\u202E1" has a character');
    expect(cron.details).toEqual({ cron: '0 9 * * \\u202E1' });
    const nul = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '0 9 * * 1\u0000', timezone: 'UTC' } }), 400, 'invalid_cron');
    expect(nul.message).toContain('the day-of-week field "1\\u0000" has a character');
    expect(nul.details).toEqual({ cron: '0 9 * * 1\\u0000' });
    const at = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { at: '2026-13-01T09:00:00\u202e+01:00' } }), 400, 'invalid_at');
    expect(at.message).toContain('when.at "2026-13-01T09:00:00\\u202E+01:00" is not an ISO 8601 time');
    expect(at.details).toEqual({ at: '2026-13-01T09:00:00\\u202E+01:00' });
    const after = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { after: { value: '\u202e5', unit: 'minute' } } }), 400, 'invalid_after');
    expect(after.message).toContain('(got "\\u202E5")');
    expect(after.details).toEqual({ value: '\\u202E5' });
    const unit = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { after: { value: 5, unit: 'min\u202eute' } } }), 400, 'invalid_after');
    expect(unit.details).toEqual({ after: { value: 5, unit: 'min\\u202Eute' }, units: ['second', 'minute', 'hour', 'day', 'week'] });
    expect(JSON.stringify([cron, nul, at, after, unit])).not.toMatch(/[\u202e\u0000]/);
  });

  it('accepts the 6-field form the invalid_cron message offers', async () => {
    // The example of the message is a schedule POST takes (seconds first: 09:00:30 on weekdays).
    const created = await call('POST', '/v1/schedules', body({ agent_id: 'six-fields', when: { cron: '30 0 9 * * 1-5', timezone: 'UTC' } }));
    expect(created.status).toBe(201);
    expect(created.body.when).toEqual({ cron: '30 0 9 * * 1-5', timezone: 'UTC' });
  });

  it('refuses an empty or blank time zone as missing (timezone_required), saying to give an IANA name', async () => {
    for (const timezone of ['', '  ']) {
      const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '0 9 * * *', timezone } }), 400, 'timezone_required');
      expect(err).toEqual({
        code: 'timezone_required',
        message: 'when.timezone is empty: with when.cron give an IANA name such as "Europe/Berlin" or "UTC" (there is no default zone)',
        details: { cron: '0 9 * * *', missing: ['timezone'] },
      });
    }
    const id = (await call('POST', '/v1/schedules', body({ agent_id: 'validation-empty-zone' }))).body.id;
    await expectError('PATCH', `/v1/schedules/${id}`, { when: { cron: '0 9 * * *', timezone: '' } }, 400, 'timezone_required');
  });

  it('escapes control and bidi characters of an unknown time zone in details as in the message', async () => {
    const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '0 9 * * *', timezone: 'Europe/Berlin\u202e\u0085' } }), 400, 'unknown_timezone');
    expect(err.message).toContain('when.timezone "Europe/Berlin\\u202E\\u0085" is not a known IANA time zone');
    expect(err.details).toEqual({ timezone: 'Europe/Berlin\\u202E\\u0085' });
    // A known name padded with a tab (the "spaces around" refusal) escapes it the same way.
    const padded = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '0 9 * * *', timezone: '\tUTC' } }), 400, 'unknown_timezone');
    expect(padded.message).toContain('has spaces around the name');
    expect(padded.details).toEqual({ timezone: '\\u0009UTC' });
    expect(JSON.stringify([err, padded])).not.toMatch(/[\u202e\u0085\t]/);
  });

  it('writes a time zone the same way in message and details, and non-ASCII look-alikes as escapes', async () => {
    const newline = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '0 9 * * *', timezone: 'Europe/Berlin\n' } }), 400, 'unknown_timezone');
    expect(newline.message).toBe('when.timezone "Europe/Berlin\\u000A" has spaces around the name: send "Europe/Berlin" without them');
    expect(newline.details).toEqual({ timezone: 'Europe/Berlin\\u000A' });
    // U+212A KELVIN SIGN looks like K: "Europe/Kiev" in a message would hide why it was refused.
    const kelvin = await expectError('POST', '/v1/schedules', body({ agent_id: 'validation', when: { cron: '0 9 * * *', timezone: 'Europe/\u212Aiev' } }), 400, 'unknown_timezone');
    expect(kelvin).toEqual({
      code: 'unknown_timezone',
      message: 'when.timezone "Europe/\\u212Aiev" is not a known IANA time zone (IANA names are ASCII; it has U+212A): use a name such as "Europe/Berlin", "America/New_York" or "UTC"',
      details: { timezone: 'Europe/\\u212Aiev' },
    });
  });

  it('refuses malformed JSON and a non-JSON body', async () => {
    const bad = await api(svc.url, 'POST', '/v1/schedules', '{"name": ', { 'content-type': 'application/json' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_json']);
    const res = await fetch(`${svc.url}/v1/schedules`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(res.status).toBe(415);
  });

  it('refuses a schedule beyond SCHEDULE_MAX_PER_AGENT with 409 schedule_limit_reached', async () => {
    for (let i = 0; i < 3; i++) expect((await call('POST', '/v1/schedules', body({ agent_id: 'limited', name: `n${i}` }))).status).toBe(201);
    const err = await expectError('POST', '/v1/schedules', body({ agent_id: 'limited' }), 409, 'schedule_limit_reached');
    expect(err.details).toEqual({ agent_id: 'limited', limit: 3 });
  });

  it('PATCH validates its body and the new when', async () => {
    const id = (await call('POST', '/v1/schedules', body({ agent_id: 'patcher' }))).body.id;
    await expectError('PATCH', `/v1/schedules/${id}`, {}, 400, 'invalid_request');
    await expectError('PATCH', `/v1/schedules/${id}`, { colour: 'blue' }, 400, 'invalid_request');
    await expectError('PATCH', `/v1/schedules/${id}`, { when: { at: '2020-01-01T00:00:00Z' } }, 400, 'at_in_past');
    await expectError('PATCH', `/v1/schedules/${id}`, { when: { cron: 'nope', timezone: 'UTC' } }, 400, 'invalid_cron');
    await expectError('PATCH', `/v1/schedules/${id}`, { when: { cron: '0 9 * * *', timezone: 'Nowhere/Land' } }, 400, 'unknown_timezone');
    await expectError('PATCH', `/v1/schedules/${id}`, { when: { after: { value: 1, unit: 'hour' }, cron: '0 9 * * *' } }, 400, 'invalid_when');
    expect((await api(svc.url, 'GET', `/v1/schedules/${id}`)).body.when).toEqual({ cron: '0 9 * * *', timezone: 'Europe/Berlin' });
  });
});

describe('schedule names', () => {
  const unsafe = (found: string) => `must not contain ${found}: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the name as one line of plain text without them`;
  const blank = (found: string) => `must have a visible character, not only whitespace or invisible characters (found ${found}): send a short name in words`;
  const privateOnly = (found: string) =>
    `must have a visible character, not only private-use characters or noncharacters, which show as nothing or as empty boxes (found ${found}): send a short name in words`;

  it('refuses a name with a bidi control, a control character, a separator, an invisible format character, a variation selector not after a character it applies to, no visible character or only private-use characters on POST and PATCH with 400 invalid_request naming it', async () => {
    const cases: [string, string][] = [
      ['a\u202Eb', unsafe('U+202E (a bidirectional control), found at character 2')],
      ['daily\nreport', unsafe('U+000A (a control character), found at character 6')],
      ['daily\u2028report', unsafe('U+2028 (a line or paragraph separator), found at character 6')],
      // Invisible format characters: a soft hyphen, the Mongolian vowel separator, an interlinear
      // annotation anchor, and tag characters hiding "ignore" after a visible name.
      ['daily\u00ADreport', unsafe('U+00AD (an invisible character), found at character 6')],
      ['daily\u180Ereport', unsafe('U+180E (an invisible character), found at character 6')],
      ['\uFFF9daily\uFFFAreport\uFFFB', unsafe('U+FFF9 (an invisible character), found at character 1')],
      [`Report${[...'ignore'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}`, unsafe('U+E0069 (an invisible character), found at character 7')],
      // Behind a black flag but not a flag's tags (a space, upper case): still hidden text.
      [`\u{1F3F4}${[...'ignore all'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}\u{E007F}`, unsafe('U+E0069 (an invisible character), found at character 2')],
      // Flag-shaped but not one of the three flags: a hidden word.
      [`\u{1F3F4}${[...'admin'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}\u{E007F}`, unsafe('U+E0061 (an invisible character), found at character 2')],
      // Invisible inside a visible name: an invisible math operator, the Hangul fillers.
      ['daily\u2061report', unsafe('U+2061 (an invisible character), found at character 6')],
      ['daily\u3164', unsafe('U+3164 (an invisible character), found at character 6')],
      ['\uFFA0daily', unsafe('U+FFA0 (an invisible character), found at character 1')],
      // More that show as nothing: Hangul fillers, a deprecated format character, the combining
      // grapheme joiner, a Khmer inherent vowel, a musical formatting character.
      ['adm\u115Fin', unsafe('U+115F (an invisible character), found at character 4')],
      ['adm\u206Ain', unsafe('U+206A (an invisible character), found at character 4')],
      ['adm\u034Fin', unsafe('U+034F (an invisible character), found at character 4')],
      ['adm\u17B4in', unsafe('U+17B4 (an invisible character), found at character 4')],
      ['adm\u{1D173}in', unsafe('U+1D173 (an invisible character), found at character 4')],
      // Mongolian free variation selectors (and U+180F), Egyptian hieroglyph and shorthand format controls.
      ['adm\u180Bin', unsafe('U+180B (an invisible character), found at character 4')],
      ['adm\u180Fin', unsafe('U+180F (an invisible character), found at character 4')],
      ['adm\u{13430}in', unsafe('U+13430 (an invisible character), found at character 4')],
      ['adm\u{13439}in', unsafe('U+13439 (an invisible character), found at character 4')],
      ['adm\u{1BCA0}in', unsafe('U+1BCA0 (an invisible character), found at character 4')],
      // A variation selector with no character to select a glyph of: at the start, after a space,
      // after another selector, after an invisible character; one of the supplement too.
      ['\uFE0Fadmin', unsafe('U+FE0F (a variation selector not after a character it applies to), found at character 1')],
      ['admin \uFE00', unsafe('U+FE00 (a variation selector not after a character it applies to), found at character 7')],
      ['\u2764\uFE0F\uFE0F', unsafe('U+FE0F (a variation selector not after a character it applies to), found at character 3')],
      ['adm\u200D\uFE0Ein', unsafe('U+FE0E (a variation selector not after a character it applies to), found at character 5')],
      ['\u{E0100}admin', unsafe('U+E0100 (a variation selector not after a character it applies to), found at character 1')],
      ['\uFE0F', unsafe('U+FE0F (a variation selector not after a character it applies to), found at character 1')],
      // After a character it does not apply to a selector shows as nothing: "admin" with a hidden
      // difference (U+FE0E/U+FE0F apply to emoji beyond ASCII, U+FE00–U+FE0D to characters beyond
      // ASCII, U+E0100–U+E01EF to ideographs), a selector after each letter hiding a word, a digit's
      // emoji selector with no keycap U+20E3 after it.
      ['adm\uFE0Fin', unsafe('U+FE0F (a variation selector not after a character it applies to), found at character 4')],
      ['ad\uFE0Emin', unsafe('U+FE0E (a variation selector not after a character it applies to), found at character 3')],
      ['a\uFE00dmin', unsafe('U+FE00 (a variation selector not after a character it applies to), found at character 2')],
      ['a\u{E0100}dmin', unsafe('U+E0100 (a variation selector not after a character it applies to), found at character 2')],
      ['a\u{E0100}d\u{E0101}m\u{E0102}i\u{E0103}n\u{E0104}', unsafe('U+E0100 (a variation selector not after a character it applies to), found at character 2')],
      ['\u2764\u{E0100}', unsafe('U+E0100 (a variation selector not after a character it applies to), found at character 2')],
      ['caf\u00E9\uFE0F', unsafe('U+FE0F (a variation selector not after a character it applies to), found at character 5')],
      ['1\uFE0F', unsafe('U+FE0F (a variation selector not after a character it applies to), found at character 2')],
      ['report 1\uFE0F daily', unsafe('U+FE0F (a variation selector not after a character it applies to), found at character 9')],
      ['a\uFE0F\u20E3', unsafe('U+FE0F (a variation selector not after a character it applies to), found at character 2')],
      // A byte order mark is refused, not trimmed away (JavaScript's trim() strips U+FEFF) nor read as empty.
      [' \uFEFFx', unsafe('U+FEFF (an invisible character), found at character 2')],
      ['\uFEFF', unsafe('U+FEFF (an invisible character), found at character 1')],
      ['x\uFEFF ', unsafe('U+FEFF (an invisible character), found at character 2')],
      ['\u2800', blank('U+2800')],
      ['\u0301\u0301', blank('U+0301')],
      // Only private-use characters or noncharacters: empty boxes at best.
      ['\uE000', privateOnly('U+E000')],
      ['\uF8FF \uE001', privateOnly('U+F8FF')],
      ['\u{F0000}', privateOnly('U+F0000')],
      ['\u{10FFFD}', privateOnly('U+10FFFD')],
      ['\uFDD0', privateOnly('U+FDD0')],
      ['\uFFFE\uFFFF', privateOnly('U+FFFE')],
      ['\u{1FFFF}', privateOnly('U+1FFFF')],
      ['\u200D\uE000', privateOnly('U+E000')],
    ];
    const id = (await call('POST', '/v1/schedules', body({ agent_id: 'names', name: 'before' }))).body.id;
    for (const [name, message] of cases) {
      for (const [method, path] of [['POST', '/v1/schedules'], ['PATCH', `/v1/schedules/${id}`]]) {
        const r = await call(method, path, method === 'POST' ? body({ agent_id: 'names', name }) : { name });
        expect(r.status, `${method} ${JSON.stringify(name)}`).toBe(400);
        expect(r.body.error, `${method} ${JSON.stringify(name)}`).toEqual({ code: 'invalid_request', message: `name ${message}`, details: [{ path: 'name', code: 'custom', message }] });
      }
    }
    expect((await api(svc.url, 'GET', `/v1/schedules/${id}`)).body.name).toBe('before');
    expect((await api(svc.url, 'GET', '/v1/schedules?agent_id=names')).body.data).toHaveLength(1);
  });

  it('keeps right-to-left text, emoji with ZWJ or a variation selector, words with ZWNJ, subdivision flags and a private-use character beside text in a name', async () => {
    const scotland = `\u{1F3F4}${[...'gbsct'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}\u{E007F}`;
    // A variation selector after a character it applies to: emoji and text presentation, keycaps,
    // a flag with a ZWJ, an ideographic variant, a standardized variation sequence of a math
    // symbol (U+2264 U+FE00); a private-use character beside visible text.
    const name = `מדריך 👩\u200D💻 می\u200Cخواهم ${scotland} I \u2764\uFE0F \u2764\uFE0E 1\uFE0F\u20E3 #\uFE0F\u20E3 \u{1F3F3}\uFE0F\u200D\u{1F308} \u845B\u{E0100} \u2264\uFE00 logo\uE000`;
    const r = await call('POST', '/v1/schedules', body({ agent_id: 'names-ok', name }));
    expect(r.status).toBe(201);
    expect(r.body.name).toBe(name);
    const alone = await call('POST', '/v1/schedules', body({ agent_id: 'names-ok', name: '\u2264\uFE00' }));
    expect(alone.status).toBe(201);
    expect(alone.body.name).toBe('\u2264\uFE00');
  });
});

describe('schedules that could never run', () => {
  it('answers 503 model_not_configured when no model endpoint is configured', async () => {
    const bare = await startTestService();
    try {
      const res = await api(bare.url, 'POST', '/v1/schedules', body());
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: { code: 'model_not_configured' } });
      expect(validateResponse('/v1/schedules', 'post', res.status, res.body)).toEqual([]);
      expect((await api(bare.url, 'GET', '/v1/schedules')).body).toMatchObject({ data: [] });
    } finally {
      await bare.close();
    }
  });

  it('answers 400 model_required when neither the body nor MODEL names a model', async () => {
    const noModel = await startTestService({ modelBaseURL: model.baseURL, env: { MODEL: '' } });
    try {
      const res = await api(noModel.url, 'POST', '/v1/schedules', body());
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'model_required' } });
      const named = await api(noModel.url, 'POST', '/v1/schedules', body({ model: 'some-model' }));
      expect(named.status).toBe(201);
    } finally {
      await noModel.close();
    }
  });
});
