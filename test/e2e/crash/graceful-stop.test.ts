/**
 * A graceful stop (SIGTERM) of the real service process while a tool call runs, then a start on
 * the same DATA_DIR: the cut call is treated as after a crash (resume.test.ts) — a read-only call
 * runs again and the model gets its real output, any other call is not run again and is reported
 * interrupted — never as a cancel. A client's cancel during a call still ends it cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { api } from '../support/service.js';
import { crashRig, expectCutCommandReportedInterrupted, expectCutReadOnlyCallRunAgain, slowSearchServer, waitUntil } from './harness.js';

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
});

const CANCEL_OUTPUT = 'Error: the turn was cancelled while this tool call was running';

describe('a turn stopped with SIGTERM during a tool call resumes on restart as after a crash', () => {
  it('a read-only call runs again and the model gets its real output, not a cancel error', async () => {
    const { output, all } = await expectCutReadOnlyCallRunAgain(model, 'done searching', async (rig) => {
      expect(await rig.stop()).toBe(0);
    });
    expect(output).not.toContain('cancelled');
    expect(all.filter((e) => e.event === 'tool.completed')[0].json).toMatchObject({ is_error: false });
    expect(all.some((e) => e.event === 'turn.cancelled')).toBe(false);
  }, 400_000);

  it('a non-read-only command is not run again and is reported interrupted, as after a crash', async () => {
    await expectCutCommandReportedInterrupted(model, 'graceful', async (rig) => {
      expect(await rig.stop()).toBe(0);
    });
  }, 400_000);
});

it("a client's cancel during a read-only call still ends the turn cancelled with the call's cancel outcome", async () => {
  const search = await slowSearchServer(30_000);
  const rig = await crashRig(model.baseURL, { WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: search.url });
  try {
    await rig.start();
    model.push({ output: [functionCall('web_search', { query: 'maps' }, { callId: 'call_search' })] });
    const id = await rig.createTurn({ input: 'search maps', tools: ['web'] });
    await rig.events(id, { stopWhen: (e) => e.event === 'tool.started' });
    await waitUntil(() => search.hits() === 1);
    const cancelled = await api(rig.url, 'POST', `/v1/turns/${id}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    const all = await rig.events(id);
    const completed = all.filter((e) => e.event === 'tool.completed');
    expect(completed.map((e) => e.json)).toEqual([expect.objectContaining({ call_id: 'call_search', is_error: true, output: CANCEL_OUTPUT })]);
    expect(all.at(-1)).toMatchObject({ event: 'turn.cancelled', json: { calls: [{ call_id: 'call_search', state: 'cancelled' }] } });
  } finally {
    await rig.dispose();
    await search.close();
  }
}, 400_000);
