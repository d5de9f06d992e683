/**
 * What the turn routes accept and what they return, through the real server and a scripted model:
 * the cancel body, input without text, the record's `input_preview` and `previous_turn_id`,
 * continuation refusals (`agent_mismatch`, `multitask_strategy` without a previous turn), and
 * what the events route serves.
 */
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { validateResponse } from './support/spec.js';

const harness = useScriptedService();

const create = (body: unknown, query = '') => api(harness.svc.url, 'POST', `/v1/turns${query}`, body);

describe('POST /v1/turns/{id}/cancel body', () => {
  it('refuses unknown fields with 400 invalid_request naming the field and saying the route takes none; the turn is untouched', async () => {
    harness.model.push({ output: [message('done')] });
    const turn = await create({ input: 'cancel me', agent_id: 'cancel-body' }, '?wait=true');
    const r = await api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/cancel`, { reason: 'x' });
    expect(r.status).toBe(400);
    expect(validateResponse('/v1/turns/{id}/cancel', 'post', 400, r.body)).toEqual([]);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'the request body has unknown field "reason": cancel takes no fields; send no body or {}',
      details: [{ path: '', code: 'unrecognized_keys', message: 'has unknown field "reason": cancel takes no fields; send no body or {}' }],
    });
  });

  it('accepts no body and an empty object', async () => {
    harness.model.push({ output: [message('done')] }, { output: [message('done')] });
    for (const body of [undefined, {}]) {
      const turn = await create({ input: 'cancel me', agent_id: 'cancel-body' }, '?wait=true');
      const r = await api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/cancel`, body);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: turn.body.id, status: 'completed' });
    }
  });

  it('takes an empty body sent with Content-Type: application/json as no body', async () => {
    harness.model.push({ output: [message('done')] });
    const turn = await create({ input: 'cancel me', agent_id: 'cancel-body' }, '?wait=true');
    const r = await api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/cancel`, '', { 'content-type': 'application/json' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: turn.body.id, status: 'completed' });
  });

  it('refuses a JSON null body like any other body that is not an object, saying to send no body or {}', async () => {
    harness.model.push({ output: [message('done')] });
    const turn = await create({ input: 'cancel me', agent_id: 'cancel-body' }, '?wait=true');
    const r = await api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/cancel`, 'null');
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'the request body must be {} or absent: cancel takes no fields; send no body or {}',
      details: [{ path: '', code: 'invalid_type', message: 'must be {} or absent: cancel takes no fields; send no body or {}' }],
    });
  });

  it('refuses a body that is not an object', async () => {
    harness.model.push({ output: [message('done')] });
    const turn = await create({ input: 'cancel me', agent_id: 'cancel-body' }, '?wait=true');
    const r = await api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/cancel`, ['x']);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });
});

describe('POST /v1/turns Accept', () => {
  it('answers 406 when Accept rules out JSON and SSE, creating nothing; */*, no Accept and q-values keep working', async () => {
    for (const accept of ['application/xml', 'text/html', 'application/json;q=0']) {
      const before = (await api(harness.svc.url, 'GET', '/v1/turns?agent_id=accept-406')).body.data.length;
      const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'x', agent_id: 'accept-406' }, { accept });
      expect(r.status).toBe(406);
      expect(validateResponse('/v1/turns', 'post', 406, r.body)).toEqual([]);
      expect(r.body.error).toEqual({
        code: 'not_acceptable',
        message: 'POST /v1/turns answers only application/json or text/event-stream; send Accept: application/json (or */*, or no Accept) for JSON, or Accept: text/event-stream for the stream',
        details: { accept, served: ['application/json', 'text/event-stream'] },
      });
      expect((await api(harness.svc.url, 'GET', '/v1/turns?agent_id=accept-406')).body.data.length).toBe(before);
    }
    for (const accept of ['*/*', 'application/xml, application/json;q=0.5', 'text/html, */*;q=0.1']) {
      harness.model.push({ output: [message('ok')] });
      const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', agent_id: 'accept-ok' }, { accept });
      expect(r.status).toBe(200);
    }
    harness.model.push({ output: [message('ok')] });
    expect((await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', agent_id: 'accept-ok' })).status).toBe(200);
  });
});

describe('an empty body with Content-Type: application/json', () => {
  it('is no body: POST /v1/turns, whose body is required, answers 400 invalid_request saying what to send', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/turns', '', { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.message).toMatch(/^the request body is required: \{input: /);
    expect(r.body.error.details).toEqual([expect.objectContaining({ path: '', code: 'invalid_type' })]);
  });
});

describe('input without text', () => {
  const noText = 'input must not be empty or only whitespace or control characters: send text with at least one visible character';
  it.each([
    ['only NUL', '\u0000'],
    ['only NULs and spaces', '\u0000 \u0000\n'],
    ['only control characters', '\u0001\u0007\u001b\u007f\u0085'],
    ['only whitespace', ' \t\n\u00a0\u2028'],
    ['only invisible format characters', '\u200b\u2060\ufeff'],
    ['only blank letters (Hangul filler, blank Braille)', '\u3164\u2800 \uffa0'],
    ['only combining marks', '\u0301\u0301'],
  ])('refuses a string that is %s with 400 saying what to send; nothing reaches the model', async (_name, input) => {
    const before = harness.model.requests.length;
    const r = await create({ input, agent_id: 'no-text' });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({ code: 'invalid_request', message: noText, details: [{ path: 'input', code: 'custom', message: noText.slice('input '.length) }] });
    expect(harness.model.requests.length).toBe(before);
  });

  it('refuses a message list whose every content has no text', async () => {
    const r = await create({ input: [{ role: 'user', content: '\u0000' }, { role: 'system', content: '\u0007 ' }], agent_id: 'no-text' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('input must have a message with text: every content is empty or only whitespace or control characters; send at least one with a visible character');
  });

  it('refuses a steering message or a message to a job of only control characters', async () => {
    harness.model.push({ output: [message('done')] });
    const turn = await create({ input: 'hi', agent_id: 'no-text' }, '?wait=true');
    const r = await api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/messages`, { content: '\u0000\u0000' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('content must not be empty or only whitespace or control characters: send text with at least one visible character');
    const job = await api(harness.svc.url, 'POST', '/v1/jobs/0190a000-0000-7000-8000-000000000001/messages', { message: '\u0000\u200b' });
    expect(job.status).toBe(400);
    expect(job.body.error.message).toBe('message must not be empty or only whitespace or control characters: send text with at least one visible character');
  });

  it('accepts text with control characters around it', async () => {
    harness.model.push({ output: [message('ok')] });
    const r = await create({ input: '\u0000hello\u0007', agent_id: 'no-text' }, '?wait=true');
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'ok' });
  });

  it('accepts letters written with combining marks (e + U+0301) and Hangul written with jamo', async () => {
    harness.model.push({ output: [message('ok')] }, { output: [message('ok')] });
    for (const input of ['e\u0301', '\u1100\u1161']) {
      const r = await create({ input, agent_id: 'no-text' }, '?wait=true');
      expect(r.body).toMatchObject({ status: 'completed', output_text: 'ok' });
    }
  });
});

describe('input_preview', () => {
  const previewOf = async (input: unknown) => {
    harness.model.push({ output: [message('ok')] });
    const r = await create({ input, agent_id: 'preview' }, '?wait=true');
    expect(r.status).toBe(200);
    const got = await api(harness.svc.url, 'GET', `/v1/turns/${r.body.id}`);
    const listed = await api(harness.svc.url, 'GET', '/v1/turns?agent_id=preview&limit=1');
    expect(listed.body.data[0].input_preview).toBe(got.body.input_preview);
    return got.body.input_preview;
  };

  it('is one line: it stops at U+2028 and U+2029 like at a newline, and at \\r', async () => {
    expect(await previewOf('first\u2028second')).toBe('first');
    expect(await previewOf('first\u2029second')).toBe('first');
    expect(await previewOf('first\rsecond')).toBe('first');
    expect(await previewOf('\u2028\u2029  \nthird')).toBe('third');
  });

  it('holds no control characters: NUL and others are dropped, tabs become spaces, runs of spaces one', async () => {
    expect(await previewOf('a\u0000b\u0007c')).toBe('abc');
    expect(await previewOf('tab\there  and\u001b[31mred')).toBe('tab here and[31mred');
    expect(await previewOf('\u0000\u0000\nsecond line')).toBe('second line');
  });

  it('holds no bidirectional controls, so a name cannot show reversed: embeddings, overrides, isolates and marks are dropped', async () => {
    expect(await previewOf('invoice_\u202egnp.exe')).toBe('invoice_gnp.exe');
    expect(await previewOf('a\u202ab\u202bc\u202cd\u202de\u2066f\u2067g\u2068h\u2069i\u200ej\u200fk\u061cl')).toBe('abcdefghijkl');
    // Other format characters stay: a zero-width joiner inside an emoji sequence is part of the text.
    expect(await previewOf('team \u{1F469}\u200d\u{1F4BB}')).toBe('team \u{1F469}\u200d\u{1F4BB}');
    expect(await previewOf('\u202e\u2066\nsecond')).toBe('second');
  });

  it('holds no invisible characters: a zero-width space, word joiner or BOM is dropped, a non-joiner kept', async () => {
    expect(await previewOf('\ufeffin\u200bvoice\u2060.pdf')).toBe('invoice.pdf');
    expect(await previewOf('\u200b\ufeff\nsecond')).toBe('second');
    expect(await previewOf('می\u200cخواهم')).toBe('می\u200cخواهم');
  });

  it('holds no Mongolian variation selectors, hieroglyph or shorthand format controls, nor a variation selector not after a character it applies to; an emoji, an ideograph and a math symbol keep theirs', async () => {
    expect(await previewOf('in\u180bvo\u180fice\u{13430}.p\u{1bca0}df')).toBe('invoice.pdf');
    expect(await previewOf('\ufe0fin\u200b\ufe0evoice \u{e0100}pdf')).toBe('invoice pdf');
    expect(await previewOf('\ufe0f\nsecond')).toBe('second');
    expect(await previewOf('I \u2764\ufe0f it \u845b\u{e0100}')).toBe('I \u2764\ufe0f it \u845b\u{e0100}');
    expect(await previewOf('adm\ufe0fin 1\ufe0f a\u{e0100}b \u2264\ufe00 1\ufe0f\u20e3')).toBe('admin 1 ab \u2264\ufe00 1\ufe0f\u20e3');
  });

  it('is the first line with text of a list input: a blank message is skipped, user messages come first', async () => {
    expect(await previewOf([{ role: 'user', content: '  ' }, { role: 'user', content: 'real' }])).toBe('real');
    expect(await previewOf([{ role: 'user', content: '\u200b\n' }, { role: 'user', content: '\u0000' }, { role: 'user', content: '\n\nthird\nfourth' }])).toBe('third');
    expect(await previewOf([{ role: 'system', content: 'be brief' }, { role: 'user', content: ' ' }, { role: 'user', content: 'question' }])).toBe('question');
    // Without a user message with text, the first other message with text.
    expect(await previewOf([{ role: 'user', content: ' ' }, { role: 'developer', content: '' }, { role: 'assistant', content: 'earlier answer' }])).toBe('earlier answer');
  });
});

describe('previous_turn_id on the record', () => {
  it('is null for a first turn and the continued turn for a continuation, in GET, the list and ?wait=true', async () => {
    harness.model.push({ output: [message('one')] }, { output: [message('two')] });
    const first = await create({ input: 'first', agent_id: 'chain' }, '?wait=true');
    expect(first.body.previous_turn_id).toBeNull();
    const second = await create({ input: 'second', agent_id: 'chain', previous_turn_id: first.body.id }, '?wait=true');
    expect(second.body.previous_turn_id).toBe(first.body.id);
    expect(validateResponse('/v1/turns', 'post', 200, second.body)).toEqual([]);
    const got = await api(harness.svc.url, 'GET', `/v1/turns/${second.body.id}`);
    expect(got.body.previous_turn_id).toBe(first.body.id);
    expect(validateResponse('/v1/turns/{id}', 'get', 200, got.body)).toEqual([]);
    const list = await api(harness.svc.url, 'GET', '/v1/turns?agent_id=chain');
    expect(list.body.data.map((t: { previous_turn_id: string | null }) => t.previous_turn_id)).toEqual([first.body.id, null]);
    expect(validateResponse('/v1/turns', 'get', 200, list.body)).toEqual([]);
  });
});

describe('previous_turn_not_found', () => {
  it('names previous_turn_id in the details and says what to send', async () => {
    const r = await create({ input: 'next', previous_turn_id: 'no-such-turn' });
    expect(r.status).toBe(404);
    expect(validateResponse('/v1/turns', 'post', 404, r.body)).toEqual([]);
    expect(r.body.error).toEqual({
      code: 'previous_turn_not_found',
      message: 'previous turn "no-such-turn" not found: send previous_turn_id of a turn this service returned, or leave it out to start a new conversation',
      details: { previous_turn_id: 'no-such-turn' },
    });
  });
});

describe('agent_mismatch', () => {
  it('agent_mismatch names the agent that owns the previous turn and what to send', async () => {
    harness.model.push({ output: [message('one')] });
    const first = await create({ input: 'first', agent_id: 'owner-a' }, '?wait=true');
    const r = await create({ input: 'next', agent_id: 'other-b', previous_turn_id: first.body.id });
    expect(r.status).toBe(409);
    expect(r.body.error).toEqual({
      code: 'agent_mismatch',
      message: `previous turn ${first.body.id} belongs to agent owner-a, not other-b; send "agent_id": "owner-a" to continue it, or leave out previous_turn_id to start a new conversation for other-b`,
      details: { previous_turn_id: first.body.id, agent_id: 'owner-a' },
    });
  });
});

describe('multitask_strategy without previous_turn_id', () => {
  it.each(['reject', 'enqueue', 'interrupt', 'steer'])('multitask_strategy %s without previous_turn_id is 400 saying it applies to continuations only', async (strategy) => {
    const before = harness.model.requests.length;
    const r = await create({ input: 'hi', agent_id: 'lonely', multitask_strategy: strategy });
    expect(r.status).toBe(400);
    const what = 'must come with previous_turn_id: it says what to do while the continued turn is still active; send previous_turn_id too, or leave multitask_strategy out';
    expect(r.body.error).toEqual({ code: 'invalid_request', message: `multitask_strategy ${what}`, details: [{ path: 'multitask_strategy', code: 'custom', message: what }] });
    expect(harness.model.requests.length).toBe(before);
  });
});

describe('GET /v1/turns/{id}/events Accept', () => {
  it('answers 406 to a client that accepts only JSON, naming what the route serves and where the JSON record is', async () => {
    harness.model.push({ output: [message('ok')] });
    const turn = await create({ input: 'hi', agent_id: 'accept' }, '?wait=true');
    for (const accept of ['application/json', 'application/json, text/html', 'text/event-stream;q=0, application/json']) {
      const r = await api(harness.svc.url, 'GET', `/v1/turns/${turn.body.id}/events`, undefined, { accept });
      expect(r.status, accept).toBe(406);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(validateResponse('/v1/turns/{id}/events', 'get', 406, r.body)).toEqual([]);
      expect(r.body.error).toEqual({
        code: 'not_acceptable',
        message: `GET /v1/turns/${turn.body.id}/events serves only text/event-stream (the turn's events as SSE); send Accept: text/event-stream, or read the turn as JSON with GET /v1/turns/${turn.body.id}`,
        details: { accept, served: ['text/event-stream'] },
      });
    }
  });

  it('streams for text/event-stream, */*, text/* and no Accept', async () => {
    harness.model.push({ output: [message('ok')] });
    const turn = await create({ input: 'hi', agent_id: 'accept' }, '?wait=true');
    for (const accept of ['text/event-stream', '*/*', 'text/*', 'application/json;q=0.9, text/event-stream;q=0.1', undefined]) {
      const res = await fetch(`${harness.svc.url}/v1/turns/${turn.body.id}/events`, { headers: accept === undefined ? {} : { accept } });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-type'), accept).toMatch(/^text\/event-stream/);
      expect(await res.text()).toContain('event: turn.completed');
    }
  });
});

describe('model names with unsafe characters', () => {
  const routes: [string, (model: string) => unknown][] = [
    ['/v1/turns', (model) => ({ input: 'hi', model })],
    ['/v1/tools/preview', (model) => ({ model })],
    ['/v1/schedules', (model) => ({ name: 'model check', input: 'hi', model, when: { every: '1h' } })],
    ['/v1/workflows', (model) => ({ title: 'model check', model, tasks: [{ label: 'a', prompt: 'p', result_schema: { type: 'object', properties: {} } }] })],
  ];

  it('are refused with 400 invalid_request naming the character (a zero-width joiner or non-joiner, or another format character, too), on every route that takes a model', async () => {
    for (const [path, body] of routes) {
      for (const [model, found] of [['a\u202eb', 'U+202E (a bidirectional control), found at character 2'], ['gpt\n', 'U+000A (a control character), found at character 4'], ['m\u200bx', 'U+200B (an invisible character), found at character 2'], ['m\u2028', 'U+2028 (a line or paragraph separator), found at character 2'], ['gp\uFE0Ft', 'U+FE0F (a variation selector not after a character it applies to), found at character 3'], ['gpt\u{E0100}', 'U+E0100 (a variation selector not after a character it applies to), found at character 4'], ['gpt\u200D4o', 'U+200D (an invisible character), found at character 4'], ['gp\u200Ct', 'U+200C (an invisible character), found at character 3'], ['\u0600gpt', 'U+0600 (a format character), found at character 1']] as const) {
        const r = await api(harness.svc.url, 'POST', path, body(model));
        expect(r.status, `${path} ${JSON.stringify(model)}`).toBe(400);
        expect(r.body.error.code).toBe('invalid_request');
        expect(r.body.error.message).toBe(`model must not contain ${found}: no control characters, line or paragraph separators, invisible or format characters or bidirectional controls are allowed; send the model name as the model endpoint lists it, without them`);
        expect(r.body.error.details).toEqual([expect.objectContaining({ path: 'model' })]);
      }
    }
  });

  it('are refused with 400 invalid_request when white space starts or ends them, saying to remove it, on every route that takes a model', async () => {
    for (const [path, body] of routes) {
      for (const [model, message] of [
        [' gpt ', 'must not start or end with white space (found U+0020 at the start): remove it, as in "gpt"'],
        ['gpt-5-mini\u00A0', 'must not start or end with white space (found U+00A0 at the end): remove it, as in "gpt-5-mini"'],
        ['\u3000', 'must not start or end with white space (found U+3000 at the start): send the model name as the model endpoint lists it'],
      ] as const) {
        const r = await api(harness.svc.url, 'POST', path, body(model));
        const what = `${path} ${JSON.stringify(model)}`;
        expect(r.status, what).toBe(400);
        expect(r.body.error.code, what).toBe('invalid_request');
        expect(r.body.error.message, what).toContain(`model ${message}`);
        expect(r.body.error.details, what).toEqual([expect.objectContaining({ path: 'model', message })]);
      }
    }
  });
});
