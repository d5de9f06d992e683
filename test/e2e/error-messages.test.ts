/**
 * Errors that say what to do: validation messages name the field, what is missing or wrong and
 * the accepted shapes (zod error customisation, for every schema); a body without a JSON
 * Content-Type gets a 415 that says which one to send; a wrong method on a known path is a 405
 * with `Allow`.
 */
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';

const harness = useScriptedService();
/** The one message of a blank text field (turn input, steering and job messages, task prompts). */
const NO_TEXT = 'must not be empty or only whitespace or control characters: send text with at least one visible character';
const INPUT_SHAPE = 'a string or a list of {role: user|assistant|system|developer, content: string}';

async function createTurn(body: unknown) {
  const r = await api(harness.svc.url, 'POST', '/v1/turns', body);
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('invalid_request');
  return r.body.error as { message: string; details: { path: string; code: string; message: string }[] };
}

describe('validation messages', () => {
  it('says input is required and lists the accepted shapes when it is missing', async () => {
    const err = await createTurn({});
    expect(err.message).toBe(`input is required: ${INPUT_SHAPE}`);
    expect(err.details).toEqual([{ path: 'input', code: 'invalid_union', message: `is required: ${INPUT_SHAPE}` }]);
  });

  it('says what was given when input has the wrong type', async () => {
    expect((await createTurn({ input: 5 })).message).toBe(`input must be ${INPUT_SHAPE}, got 5`);
    // A short string of the wrong kind is quoted with a bidi or C1 control as \uXXXX, never raw.
    const tools = (await createTurn({ input: 'hi', tools: 'w\u202Eeb\u0085' })).message;
    expect(tools).toMatch(/^tools must be a list of .*, got "w\\u202Eeb\\u0085"$/);
  });

  it('points at the bad role inside a list input, in message and details alike', async () => {
    const err = await createTurn({ input: [{ role: 'bot', content: 'hi' }] });
    expect(err.message).toBe('input[0].role must be one of user|assistant|system|developer, got "bot"');
    expect(err.details).toEqual([{ path: 'input[0].role', code: 'invalid_value', message: 'must be one of user|assistant|system|developer, got "bot"' }]);
    const second = await createTurn({ input: [{ role: 'user', content: 'hi' }, { role: 'tool', content: 'x' }] });
    expect(second.message).toBe('input[1].role must be one of user|assistant|system|developer, got "tool"');
    expect(second.details).toEqual([{ path: 'input[1].role', code: 'invalid_value', message: 'must be one of user|assistant|system|developer, got "tool"' }]);
  });

  it('shows a value that is none of the allowed ones quoted, escaped and clipped, and a list or object by its kind', async () => {
    const odd = await createTurn({ input: [{ role: 'us\u202Eer\u0085', content: 'hi' }] });
    expect(odd.message).toBe('input[0].role must be one of user|assistant|system|developer, got "us\\u202Eer\\u0085"');
    const long = await createTurn({ input: [{ role: 'r'.repeat(500_000), content: 'hi' }] });
    expect(long.message).toBe(`input[0].role must be one of user|assistant|system|developer, got "${'r'.repeat(80)}"… (500000 characters)`);
    const object = await createTurn({ input: [{ role: { a: 'x'.repeat(500_000) }, content: 'hi' }] });
    expect(object.message).toBe('input[0].role must be one of user|assistant|system|developer, got an object');
  });

  it('names the missing field of a message, and every problem of the list', async () => {
    const err = await createTurn({ input: [{ role: 'user' }] });
    expect(err.message).toBe('input[0].content is required: a string');
    expect(err.details).toEqual([{ path: 'input[0].content', code: 'invalid_type', message: 'is required: a string' }]);
    const two = await createTurn({ input: [{ role: 'tool', content: 'x' }, { role: 'user', content: 'y', name: 'n' }] });
    expect(two.details.map((d) => [d.path, d.code])).toEqual([
      ['input[0].role', 'invalid_value'],
      ['input[1]', 'unrecognized_keys'],
    ]);
    expect(two.message).toBe('input[0].role must be one of user|assistant|system|developer, got "tool"; input[1] has unknown field "name": accepted fields are role, content');
  });

  it('points at the tool of approvals whose value is not always|never; a value of no accepted kind stays at approvals', async () => {
    const err = await createTurn({ input: 'hi', approvals: { todo: 'sometimes' } });
    expect(err.message).toBe('approvals.todo must be one of always|never, got "sometimes"');
    expect(err.details).toEqual([{ path: 'approvals.todo', code: 'invalid_value', message: 'must be one of always|never, got "sometimes"' }]);
    const kind = await createTurn({ input: 'hi', approvals: 5 });
    expect(kind.message).toBe('approvals must be "destructive" or an object {<tool name>: "always" | "never"}');
    expect(kind.details).toEqual([{ path: 'approvals', code: 'invalid_union', message: 'must be "destructive" or an object {<tool name>: "always" | "never"}' }]);
  });

  it('lists the accepted fields for an unknown one', async () => {
    expect((await createTurn({ input: 'hi', agentid: 'x' })).message).toMatch(
      /^the request body has unknown field "agentid": accepted fields are input, instructions\?, model\?, model_api\?, agent_id\?, /,
    );
  });

  it('gives the accepted values of an enum and the value sent, on other routes too', async () => {
    expect((await createTurn({ input: 'hi', tools: ['webb'] })).message).toBe('tools[0] must be one of todo|computer|web|schedule|workflow|clarify|jobs, got "webb"');
    const list = await api(harness.svc.url, 'GET', '/v1/turns?status=done');
    expect(list.status).toBe(400);
    expect(list.body.error.message).toBe('status must be one of queued|running|waiting|completed|failed|cancelled, got "done"');
  });

  it('says which field is out of range or too long, what is accepted and what was given, in plain words', async () => {
    const cases: [Record<string, unknown>, string, string, string][] = [
      [{ input: 'hi', max_steps: 0 }, 'max_steps', 'too_small', 'must be at least 1, got 0'],
      [{ input: 'hi', max_steps: 501 }, 'max_steps', 'too_big', 'must be at most 500, got 501'],
      [{ input: 'hi', model: '' }, 'model', 'too_small', 'must not be empty'],
      [{ input: 'hi', model: 'm'.repeat(201) }, 'model', 'too_big', 'must be at most 200 characters long, got 201'],
      [{ input: 'hi', skills: Array.from({ length: 65 }, (_, i) => `s${i}`) }, 'skills', 'too_big', 'must have at most 64 items, got 65'],
      [{ input: 'hi', metadata: { ['k'.repeat(65)]: 1 } }, `metadata.${'k'.repeat(65)}`, 'invalid_key', 'has an invalid key: must be at most 64 characters long, got 65'],
    ];
    for (const [body, path, code, text] of cases) {
      const err = await createTurn(body);
      expect(err.message).toBe(`${path} ${text}`);
      expect(err.details).toEqual([{ path, code, message: text }]);
      expect(err.message).not.toMatch(/Too (small|big)|expected \w+ to have|Invalid/);
    }
  });

  it('refuses a metadata key with a control character, a bidi control or an invisible character, naming it and where it is, escaped in path and message; a value keeps such characters as sent', async () => {
    const NO_CHARS = 'no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the metadata key as one line of plain text without them';
    const cases: [string, string, string][] = [
      ['invo\u202Ece', 'invo\\u202Ece', 'U+202E (a bidirectional control), found at character 5'],
      ['a\u0000b', 'a\\u0000b', 'U+0000 (a control character), found at character 2'],
      ['tab\there', 'tab\\u0009here', 'U+0009 (a control character), found at character 4'],
      ['ad\u200Bmin', 'ad\\u200Bmin', 'U+200B (an invisible character), found at character 3'],
    ];
    for (const [key, shown, found] of cases) {
      const err = await createTurn({ input: 'hi', metadata: { ok: 1, [key]: 'x' } });
      const text = `has an invalid key "${shown}": must not contain ${found}: ${NO_CHARS}`;
      expect(err.details).toEqual([{ path: `metadata.${shown}`, code: 'invalid_key', message: text }]);
      expect(err.message).toBe(`metadata.${shown} ${text}`);
    }
    // A value is the client's own data, returned as sent (JSON escapes its control characters).
    const res = await fetch(`${harness.svc.url}/v1/turns?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi', metadata: { note: 'a\u202Eb\u0000c' } }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { metadata: unknown }).metadata).toEqual({ note: 'a\u202Eb\u0000c' });
    // Only those characters are refused: a key of a private-use character, of a combining mark
    // alone, or the empty key is the client's choice.
    const kept = { '\uE000': 1, '\u0301': 2, '': 3 };
    const ok = await fetch(`${harness.svc.url}/v1/turns?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi', metadata: kept }) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { metadata: unknown }).metadata).toEqual(kept);
  });

  it('names the request body when it is missing or not an object', async () => {
    const missing = await api(harness.svc.url, 'POST', '/v1/turns', undefined);
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/^the request body is required: \{input: /);
    const list = await createTurn([]);
    expect(list.message).toMatch(/^the request body must be \{input: .*, got a list$/);
    expect(list.details).toEqual([expect.objectContaining({ path: '', code: 'invalid_type' })]);
  });

  it('spells a path one way in message and details, on every route: tools[0], tasks[1].prompt, input[1].role', async () => {
    const tools = await createTurn({ input: 'hi', tools: ['todo', 'webb'] });
    expect(tools.message).toMatch(/^tools\[1\] must be one of /);
    expect(tools.details).toEqual([expect.objectContaining({ path: 'tools[1]', code: 'invalid_value' })]);
    const task = { label: 'l', prompt: 'p', result_schema: { type: 'object', properties: {}, additionalProperties: false } };
    const workflow = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 't', tasks: [task, { ...task, prompt: 5 }] });
    expect(workflow.status).toBe(400);
    expect(workflow.body.error.message).toBe('tasks[1].prompt must be a string, got 5');
    expect(workflow.body.error.details).toEqual([{ path: 'tasks[1].prompt', code: 'invalid_type', message: 'must be a string, got 5' }]);
    const schedule = await api(harness.svc.url, 'POST', '/v1/schedules', { name: 'n', input: 'x', when: { after: { value: 1, unit: 'hour' } }, tools: [1] });
    expect(schedule.status).toBe(400);
    expect(schedule.body.error.details).toEqual([expect.objectContaining({ path: 'tools[0]' })]);
    expect(schedule.body.error.message).toMatch(/^tools\[0\] must be /);
    const deep = await api(harness.svc.url, 'POST', '/v1/turns', `{"input":"x","metadata":{"a":${'['.repeat(70)}${']'.repeat(70)}}}`);
    expect(deep.body.error.details[0]).toMatchObject({ code: 'too_deep', path: expect.stringMatching(/^metadata\.a(\[0\])+…$/) });
    expect(deep.body.error.message).toBe('request body is JSON nested more than 64 levels deep: send at most 64 levels of nested arrays and objects');
    expect(deep.body.error.details[0].message).toBe('JSON nested more than 64 levels deep: send at most 64 levels of nested arrays and objects');
  });

  it('says what an agent_id must be, showing the value escaped and the character not allowed, in body, query and path alike', async () => {
    const RULE = 'must be 1 to 64 characters — letters, digits, "_" and "-" (^[A-Za-z0-9_-]{1,64}$) — got';
    const MUST = `${RULE} "no spaces": " " is not allowed`;
    const err = await createTurn({ input: 'hi', agent_id: 'no spaces' });
    expect(err.message).toBe(`agent_id ${MUST}`);
    expect(err.details).toEqual([{ path: 'agent_id', code: 'invalid_format', message: MUST }]);
    const query = await api(harness.svc.url, 'GET', '/v1/turns?agent_id=no%20spaces');
    expect(query.status).toBe(400);
    expect(query.body.error.details).toEqual([{ path: 'agent_id', code: 'invalid_format', message: MUST }]);
    const param = await api(harness.svc.url, 'GET', '/v1/agents/no%20spaces/brain/pages');
    expect(param.status).toBe(400);
    expect(param.body.error.message).toBe(`agent_id ${MUST}`);
    // A bidi control is echoed escaped and named; a long id says how long it is.
    const bidi = await createTurn({ input: 'hi', agent_id: 'a\u202Eb' });
    expect(bidi.message).toBe(`agent_id ${RULE} "a\\u202Eb": U+202E is not allowed`);
    const long = await api(harness.svc.url, 'GET', `/v1/agents/${'a'.repeat(65)}/brain/pages`);
    expect(long.body.error.message).toBe(`agent_id ${RULE} "${'a'.repeat(65).slice(0, 80)}": it has 65 characters`);
    const workflow = await api(harness.svc.url, 'POST', '/v1/workflows', { agent_id: 'x/y', title: 't', tasks: [{ label: 'l', prompt: 'p', result_schema: { type: 'object', properties: {} } }] });
    expect(workflow.status).toBe(400);
    expect(workflow.body.error.details).toEqual([{ path: 'agent_id', code: 'invalid_format', message: `${RULE} "x/y": "/" is not allowed` }]);
  });

  it('keeps the messages a schema sets itself', async () => {
    expect((await createTurn({ input: '' })).message).toBe(`input ${NO_TEXT}`);
  });

  it('refuses a whitespace-only input exactly like an empty one, also as a list of blank messages', async () => {
    const empty = await createTurn({ input: '' });
    for (const input of ['   ', '\n\t ', '\u00a0\u2003']) expect(await createTurn({ input })).toEqual(empty);
    expect(empty.details).toEqual([{ path: 'input', code: 'custom', message: NO_TEXT }]);
    expect((await createTurn({ input: [{ role: 'user', content: '  ' }, { role: 'system', content: '' }] })).message).toBe(
      'input must have a message with text: every content is empty or only whitespace or control characters; send at least one with a visible character',
    );
    harness.model.push({ output: [message('fine')] });
    const ok = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: [{ role: 'system', content: ' ' }, { role: 'user', content: ' hi ' }] });
    expect(ok.status).toBe(200);
  });

  it('refuses an empty or whitespace-only steering message the same way', async () => {
    harness.model.push({ output: [message('done')] });
    const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    const steer = (content: string) => api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/messages`, { content });
    for (const content of ['', '  \n']) {
      const r = await steer(content);
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({ code: 'invalid_request', message: `content ${NO_TEXT}`, details: [{ path: 'content', code: 'custom', message: NO_TEXT }] });
    }
    expect((await steer('go on')).body.error.code).toBe('turn_finished'); // text passes validation
  });

  it('refuses an empty or whitespace-only message to a background job with the same words as a steering message', async () => {
    for (const message of ['', ' \n\t']) {
      const r = await api(harness.svc.url, 'POST', '/v1/jobs/0190a000-0000-7000-8000-000000000001/messages', { message });
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({ code: 'invalid_request', message: `message ${NO_TEXT}`, details: [{ path: 'message', code: 'custom', message: NO_TEXT }] });
    }
  });

  it('refuses a whitespace-only workflow task prompt the same way, naming the task', async () => {
    const task = (prompt: string) => ({ label: 'l', prompt, result_schema: { type: 'object', properties: {}, additionalProperties: false } });
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 't', tasks: [task('find it'), task(' \n ')] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', message: `tasks[1].prompt ${NO_TEXT}` });
  });
});

describe('Content-Type', () => {
  it('answers a body without Content-Type with 415 saying to send application/json', async () => {
    const res = await fetch(`${harness.svc.url}/v1/turns`, { method: 'POST', body: new Blob(['{"input":"hi"}']) });
    expect(res.status).toBe(415);
    expect((await res.json()).error).toEqual({
      code: 'unsupported_media_type',
      message: 'the request has a body but no Content-Type: send Content-Type: application/json',
      details: { content_type: null, accepted: ['application/json'] },
    });
  });

  it('answers text/plain with 415 naming the type sent and the one to send', async () => {
    const res = await api(harness.svc.url, 'POST', '/v1/turns', '{"input":"hi"}', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.body.error.message).toBe('Content-Type "text/plain" is not supported: send Content-Type: application/json');
    expect(res.body.error.details).toEqual({ content_type: 'text/plain', accepted: ['application/json'] });
  });
});

describe('wrong method on a known path', () => {
  it('answers 405 with Allow for the collection and for an item path', async () => {
    const put = await api(harness.svc.url, 'PUT', '/v1/turns', { input: 'hi' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(put.body.error).toEqual({
      code: 'method_not_allowed',
      message: 'PUT is not allowed on /v1/turns: use GET, HEAD or POST',
      details: { allow: ['GET', 'HEAD', 'POST'] },
    });
    harness.model.push({ output: [message('ok')] });
    const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    const del = await api(harness.svc.url, 'DELETE', `/v1/turns/${turn.body.id}`);
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD');
  });

  it('says to stop a background job, cancel a turn or cancel a workflow when it is sent DELETE', async () => {
    harness.model.push({ output: [message('ok')] });
    const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
    const id = turn.body.id as string;
    const cases: [string, string][] = [
      [`/v1/jobs/${id}`, `; to stop a background job, POST /v1/jobs/${id}/stop`],
      [`/v1/turns/${id}`, `; to cancel a turn, POST /v1/turns/${id}/cancel`],
      [`/v1/workflows/${id}`, `; to cancel a workflow, POST /v1/workflows/${id}/cancel`],
    ];
    for (const [path, hint] of cases) {
      const r = await api(harness.svc.url, 'DELETE', path);
      expect(r.status, path).toBe(405);
      expect(r.body.error, path).toEqual({ code: 'method_not_allowed', message: `DELETE is not allowed on ${path}: use GET or HEAD${hint}`, details: { allow: ['GET', 'HEAD'] } });
    }
    // Other methods and paths keep the plain message.
    expect((await api(harness.svc.url, 'PATCH', `/v1/jobs/${id}`, {})).body.error.message).toBe(`PATCH is not allowed on /v1/jobs/${id}: use GET or HEAD`);
  });

  it('echoes a 3000-character id once, cut to the start of the path and its length', async () => {
    const id = 'a'.repeat(3000);
    for (const [path, hint] of [
      [`/v1/jobs/${id}`, '; to stop a background job, POST /v1/jobs/{id}/stop'],
      [`/v1/turns/${id}`, '; to cancel a turn, POST /v1/turns/{id}/cancel'],
    ]) {
      const r = await api(harness.svc.url, 'DELETE', path);
      expect(r.status, path.slice(0, 12)).toBe(405);
      expect(r.body.error.message).toBe(`DELETE is not allowed on ${path.slice(0, 120)}… (${path.length} characters): use GET or HEAD${hint}`);
      expect(r.body.error.message.split(id.slice(0, 100))).toHaveLength(2);
    }
  });

  it('still answers 404 for a path no route has, naming it and where the routes are listed', async () => {
    const r = await api(harness.svc.url, 'GET', '/v1/nothing-here?x=1');
    expect(r.status).toBe(404);
    expect(r.headers.get('allow')).toBeNull();
    expect(r.body.error).toEqual({
      code: 'not_found',
      message: 'no route GET /v1/nothing-here: check the path; GET /openapi.yaml (or the /docs page) lists the routes this service has',
      details: { method: 'GET', path: '/v1/nothing-here', routes: '/openapi.yaml' },
    });
  });
});

describe('the 404 of an unknown path', () => {
  it('shows a long path cut at 120 characters with its length in its message and its details (control characters arrive only percent-encoded and stay so)', async () => {
    const path = `/v1/nothing/${'b'.repeat(3000)}`;
    const r = await api(harness.svc.url, 'GET', path);
    expect(r.status).toBe(404);
    expect(r.body.error).toEqual({
      code: 'not_found',
      message: `no route GET ${path.slice(0, 120)}… (${path.length} characters): check the path; GET /openapi.yaml (or the /docs page) lists the routes this service has`,
      details: { method: 'GET', path: `${path.slice(0, 120)}… (${path.length} characters)`, routes: '/openapi.yaml' },
    });
    // A 15,000-character path: the whole answer stays small (details.path once held all of it).
    const huge = await api(harness.svc.url, 'GET', `/v1/zz${'b'.repeat(15_000)}`);
    expect(huge.status).toBe(404);
    expect(huge.body.error.details.path).toBe(`/v1/zz${'b'.repeat(114)}… (15006 characters)`);
    expect(JSON.stringify(huge.body).length).toBeLessThan(2000);
    // Control characters reach the path only percent-encoded (Node's HTTP parser refuses them raw, 400): shown as sent, inert.
    const encoded = await api(harness.svc.url, 'GET', '/v1/x%1B%5B31m%E2%80%AE%00');
    expect(encoded.status).toBe(404);
    expect(encoded.body.error.message).toBe('no route GET /v1/x%1B%5B31m%E2%80%AE%00: check the path; GET /openapi.yaml (or the /docs page) lists the routes this service has');
    // The cut never splits a percent-escape: one that would straddle the 120th character goes whole.
    const escaped = `/v1/nothing/${'a'.repeat(106)}%E2%80%AE${'c'.repeat(100)}`; // %E2 at characters 119-121
    const cut = await api(harness.svc.url, 'GET', escaped);
    expect(cut.body.error.message).toBe(`no route GET /v1/nothing/${'a'.repeat(106)}… (${escaped.length} characters): check the path; GET /openapi.yaml (or the /docs page) lists the routes this service has`);
  });
});

describe('an unknown turn, workflow or job', () => {
  it('is a 404 not_found whose message says to check the id and which GET lists them, with details {resource, id, list}', async () => {
    const cases: [string, string, unknown, string, string][] = [
      ['GET', '/v1/turns/nope', undefined, 'turn', '/v1/turns'],
      ['GET', '/v1/turns/nope/events', undefined, 'turn', '/v1/turns'],
      ['POST', '/v1/turns/nope/messages', { content: 'hi' }, 'turn', '/v1/turns'],
      ['GET', '/v1/workflows/nope', undefined, 'workflow', '/v1/workflows'],
      ['POST', '/v1/workflows/nope/cancel', undefined, 'workflow', '/v1/workflows'],
      ['GET', '/v1/jobs/nope', undefined, 'job', '/v1/jobs'],
      ['POST', '/v1/jobs/nope/messages', { message: 'hi' }, 'job', '/v1/jobs'],
    ];
    for (const [method, path, body, resource, list] of cases) {
      const r = await api(harness.svc.url, method, path, body);
      expect([path, r.status]).toEqual([path, 404]);
      expect(r.body.error).toEqual({
        code: 'not_found',
        message: `${resource} "nope" not found: check the id; GET ${list} lists the ${resource}s there are`,
        details: { resource, id: 'nope', list: `GET ${list}` },
      });
    }
  });
});
