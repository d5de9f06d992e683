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

  it('refuses a body that is not an object', async () => {
    harness.model.push({ output: [message('done')] });
    const turn = await create({ input: 'cancel me', agent_id: 'cancel-body' }, '?wait=true');
    const r = await api(harness.svc.url, 'POST', `/v1/turns/${turn.body.id}/cancel`, ['x']);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });
});

