/**
 * A client's cancel that comes while the service is stopping, after the stop cut a running call:
 * the stop withheld the call's cancel outcome (so a restart would run it again), but the cancel
 * ends the turn here after all — the call's `tool.completed` is stored then, before
 * `turn.cancelled`, so every started call of the ended turn has its outcome in the log.
 */
import { expect, it } from 'vitest';
import { isStoppedWhileRunning } from '../../src/runtime/dispatch.js';
import { runTurn } from '../../src/runtime/loop.js';
import { slowSearchServer } from '../e2e/crash/harness.js';
import { api, startTestService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { functionCall, startScriptedResponsesServer } from '../support/scripted-responses-server.js';

it("stores the cut call's cancel outcome before turn.cancelled when a cancel follows the stop", async () => {
  const model = await startScriptedResponsesServer();
  const search = await slowSearchServer(30_000);
  let cancelling: Promise<unknown> | undefined;
  const svc = await startTestService({
    modelBaseURL: model.baseURL,
    env: { WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: search.url },
    overrides: {
      // The real loop; once the stop's cut outcome has gone to the run, a client cancels.
      runTurn: (opts) => runTurn({
        ...opts,
        emit: async (e) => {
          await opts.emit(e);
          if (!isStoppedWhileRunning(e)) return;
          cancelling = svc.services.turns.cancel(id);
          await new Promise((r) => setTimeout(r, 300)); // the cancel reaches the run before the loop's next event
        },
      }),
    },
  });
  let id = '';
  try {
    model.push({ output: [functionCall('web_search', { query: 'maps' }, { callId: 'call_search' })] });
    id = (await api(svc.url, 'POST', '/v1/turns', { input: 'search maps', tools: ['web'] })).body.id as string;
    await readSse(`${svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'tool.started' });
    await expect.poll(() => search.hits(), { timeout: 10_000 }).toBe(1);
    await svc.services.turns.stop(5000);
    expect(cancelling).toBeDefined();
    expect(await cancelling).toMatchObject({ status: 'cancelled' });
    const all = (await readSse(`${svc.url}/v1/turns/${id}/events`, { timeoutMs: 10_000 })).events;
    expect(all.slice(-2).map((e) => e.event)).toEqual(['tool.completed', 'turn.cancelled']);
    expect(all.filter((e) => e.event === 'tool.completed').map((e) => e.json)).toEqual([
      expect.objectContaining({ call_id: 'call_search', is_error: true, output: 'Error: the turn was cancelled while this tool call was running' }),
    ]);
    expect(all.at(-1)!.json).toMatchObject({ calls: [{ call_id: 'call_search', state: 'cancelled' }] });
  } finally {
    await svc.close();
    await search.close();
    await model.close();
  }
}, 60_000);
