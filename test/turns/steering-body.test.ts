/**
 * The body of both message routes — POST /v1/turns/{id}/messages and POST /v1/jobs/{id}/messages —
 * through the real server and the scripted model: the text goes in `content`, `message` is
 * accepted as another name for it on both (each route once took only one of the two), neither or
 * two different texts is a 400 saying what to send; a message's length counts characters (code
 * points: an emoji counts 1), 100000 at most, here as on a `steer` double-text.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateComponent, validateResponse } from '../e2e/support/spec.js';
import { heldWork } from '../e2e/support/held-work.js';
import { job, waitFor } from '../jobs/support.js';

const harness = useScriptedService();

const userTexts = (body: ResponsesRequestBody) =>
  (body.input as { role?: string; content?: unknown }[]).filter((i) => i.role === 'user').map((i) => (typeof i.content === 'string' ? i.content : JSON.stringify(i.content)));

/** Start a turn whose first round runs `command`; resolves once the command runs. */
async function busyTurn(command: string, agent: string): Promise<string> {
  harness.model.push({ output: [functionCall('command', { command })] }, { output: [message('done')] });
  const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'work a while', agent_id: agent, tools: ['computer'] });
  expect(created.status).toBe(202);
  await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 30_000 });
  return created.body.id;
}

const NEITHER = { code: 'invalid_request', message: 'content is required: send the message text as content (message is accepted as another name for it)', details: [{ path: 'content', code: 'custom', message: 'is required: send the message text as content (message is accepted as another name for it)' }] };
const DIFFERENT = {
  code: 'invalid_request',
  message: 'message is another name for content, and the two hold different texts: send the text once, as content',
  details: [{ path: 'message', code: 'custom', message: 'is another name for content, and the two hold different texts: send the text once, as content' }],
};

describe('the text of a steering message', () => {
  it('a turn takes it as content or as message (both alike); neither, or two different texts, is 400 saying to send content', async () => {
    const id = await busyTurn('sleep 2', 'names-turn');
    const post = (body: object) => api(harness.svc.url, 'POST', `/v1/turns/${id}/messages`, body);
    const asContent = await post({ content: 'first, as content' });
    const asMessage = await post({ message: 'second, as message' });
    const both = await post({ content: 'third, under both names', message: 'third, under both names' });
    for (const r of [asContent, asMessage, both]) {
      expect(r.status).toBe(202);
      expect(validateResponse('/v1/turns/{id}/messages', 'post', 202, r.body)).toEqual([]);
    }
    expect([asContent, asMessage, both].map((r) => r.body.position)).toEqual([1, 2, 3]);

    const neither = await post({});
    expect(neither.status).toBe(400);
    expect(neither.body.error).toEqual(NEITHER);
    const different = await post({ content: 'one text', message: 'another text' });
    expect(different.status).toBe(400);
    expect(different.body.error).toEqual(DIFFERENT);
    // A blank alias beside a text is refused for being blank, once, not also as a different text.
    const blank = await post({ content: 'one text', message: '' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.details.map((d: { path: string }) => d.path)).toEqual(['message']);
    expect(blank.body.error.message).not.toContain('different texts');
    // Only the two names: another field is still refused, naming the accepted ones.
    const other = await post({ text: 'hi' });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toContain('accepted fields are content?, message?');
    for (const body of [{ content: 'x' }, { message: 'x' }, { content: 'x', message: 'x' }]) expect(validateComponent('SteerTurnRequest', body)).toEqual([]);
    expect(validateComponent('SteerTurnRequest', {})).not.toEqual([]);

    const turn = await harness.svc.services.turns.waitForTerminal(id);
    expect(turn.status).toBe('completed');
    // The three texts reached the model once each, as user messages, in order; the refused ones never.
    const texts = userTexts(harness.model.requests.at(-1)!.body);
    expect(texts.filter((t) => /first, as content|second, as message|third, under both names/.test(t))).toEqual(['first, as content', 'second, as message', 'third, under both names']);
    expect(texts.some((t) => /one text|another text/.test(t))).toBe(false);
  }, 60_000);

  it('counts characters, not UTF-16 units: 100000 emoji are accepted, 100001 refused, on the route and as a steer double-text', async () => {
    const id = await busyTurn('sleep 2', 'length-turn');
    const atLimit = '😀'.repeat(100_000);
    const ok = await api(harness.svc.url, 'POST', `/v1/turns/${id}/messages`, { content: atLimit });
    expect(ok.status).toBe(202);
    const over = await api(harness.svc.url, 'POST', `/v1/turns/${id}/messages`, { message: `${atLimit}😀` });
    expect(over.status).toBe(400);
    expect(over.body.error).toEqual({ code: 'invalid_request', message: 'message must be at most 100000 characters long, got 100001', details: [{ path: 'message', code: 'too_big', message: 'must be at most 100000 characters long, got 100001' }] });
    const steer = (input: string) => api(harness.svc.url, 'POST', '/v1/turns', { input, agent_id: 'length-turn', previous_turn_id: id, multitask_strategy: 'steer' });
    const steered = await steer(`a${'😀'.repeat(99_999)}`);
    expect(steered.status).toBe(202);
    expect(steered.body).toMatchObject({ id, steered: true });
    const steerOver = await steer(`${atLimit}😀`);
    expect(steerOver.status).toBe(400);
    expect(steerOver.body.error).toEqual({
      code: 'invalid_request',
      message: 'input must be at most 100000 characters long, got 100001 (a steering message: multitask_strategy "steer")',
      details: [{ path: 'input', code: 'too_big', message: 'must be at most 100000 characters long, got 100001' }],
    });
    expect(await harness.svc.services.turns.waitForTerminal(id)).toMatchObject({ status: 'completed' });
    const texts = userTexts(harness.model.requests.at(-1)!.body);
    expect(texts.filter((t) => t.includes('😀')).map((t) => [...t].length)).toEqual([100_000, 100_000]);
  }, 60_000);

  it('a job takes it as content as well as message; neither, two different texts or one over 100000 characters is 400', async () => {
    const jobId = await heldWork(harness, 'names', 'names-job').waitingJob('done with notes.txt');
    const post = (body: object) => api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/messages`, body);

    expect((await post({})).body.error).toEqual(NEITHER);
    expect((await post({ content: 'notes.txt', message: 'other.txt' })).body.error).toEqual(DIFFERENT);
    const over = await post({ content: '😀'.repeat(100_001) });
    expect(over.status).toBe(400);
    expect(over.body.error.details).toEqual([{ path: 'content', code: 'too_big', message: 'must be at most 100000 characters long, got 100001' }]);
    expect((await job(harness.svc.url, jobId)).status).toBe('waiting_on_user');

    const answered = await post({ content: 'notes.txt' });
    expect(answered.status).toBe(202);
    expect(answered.body.delivery).toBe('answer');
    expect(validateResponse('/v1/jobs/{id}/messages', 'post', 202, answered.body)).toEqual([]);
    await waitFor(async () => ((await job(harness.svc.url, jobId)).status === 'succeeded' ? true : undefined), 30_000);
    const events = (await readSse(`${harness.svc.url}/v1/jobs/${jobId}/events`)).events.filter((e) => e.event === 'job.message');
    expect(events.map((e) => e.json.message)).toEqual(['notes.txt']);
  }, 90_000);
});
