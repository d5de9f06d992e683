/**
 * Every request that starts turns now or later (a turn, a schedule, a workflow) passes the same
 * model check: no endpoint → 503 `model_not_configured`; no `model` and no MODEL → 400
 * `model_required`; both with the same message, saying what to set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService } from './support/service.js';

const SCHEMA = { type: 'object', properties: { v: { type: 'string' } }, required: ['v'], additionalProperties: false };
const CREATES: [string, Record<string, unknown>][] = [
  ['/v1/turns', { input: 'hi' }],
  ['/v1/schedules', { name: 'daily', when: { cron: '0 9 * * *', timezone: 'UTC' }, input: 'report' }],
  ['/v1/workflows', { title: 'one', tasks: [{ label: 'a', prompt: 'a', result_schema: SCHEMA }] }],
];

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model?.close();
});

describe.each(CREATES)('POST %s', (path, body) => {
  it('answers 503 model_not_configured without a model endpoint, naming the variables to set', async () => {
    const bare = await startTestService();
    try {
      const r = await api(bare.url, 'POST', path, body);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({
        error: {
          code: 'model_not_configured',
          message: 'no model endpoint is configured: set OPENAI_API_KEY and/or OPENAI_BASE_URL (to try the service without a model key, run `bash scripts/setup npm run demo -- --serve`, which starts it against a scripted local model)',
          details: { checks: { model: 'not_configured' }, settings: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'] },
        },
      });
    } finally {
      await bare.close();
    }
  });

  it('answers 400 model_required when neither the body nor MODEL names a model, and accepts a named one', async () => {
    const noModel = await startTestService({ modelBaseURL: model.baseURL, env: { MODEL: '' } });
    try {
      const r = await api(noModel.url, 'POST', path, body);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: { code: 'model_required', message: 'no `model` in the request and no MODEL configured: send `model` or set MODEL', details: { field: 'model', settings: ['MODEL'] } },
      });
      const named = await api(noModel.url, 'POST', path, { ...body, model: 'named-model' });
      expect(named.status, JSON.stringify(named.body)).toBeLessThan(300);
    } finally {
      await noModel.close();
    }
  });
});
