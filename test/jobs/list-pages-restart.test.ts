/**
 * `list_background_jobs` page references survive a restart: with 33 finished jobs of an agent in
 * the real SQLite store, a turn gets the first page (32 jobs) and its `next_page`; the service is
 * stopped and started again on the same DATA_DIR (a new services object), and a later turn of the
 * conversation reads the rest with that reference. A reference never returned (or altered) is an
 * `Error:` the model can act on, and a reference reads only the calling agent's jobs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import type { JobRecord } from '../../src/jobs/types.js';
import { decodePageRef, encodePageRef } from '../../src/tools/jobs/list.js';
import { lastToolOutput, routedEntries } from './support.js';

let model: ScriptedResponsesServer;
let dataDir: string;
let svc: TestService | undefined;

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'jobs-pages-'));
});
afterAll(async () => {
  await svc?.close();
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function finishedJob(agentId: string, i: number): JobRecord {
  const now = new Date().toISOString();
  return {
    id: uuidv7(), agent_id: agentId, title: `Job ${i}`, task: `task ${i}`, status: 'succeeded', model: null, skills: null,
    source_turn_id: null, source_call_id: null, respawned_from: null, respawned_to: null, notify: false,
    turn_ids: [], pending_messages: [], pending_approvals: [], question: null, notice: null, output_text: `done ${i}`, error: null, attempts: 1,
    created_at: now, started_at: now, finished_at: now, updated_at: now,
  };
}

describe('list_background_jobs pages', () => {
  it('are self-contained: a next_page given before a restart reads the next page after it', async () => {
    const start = () => startTestService({ modelBaseURL: model.baseURL, dataDir });
    svc = await start();
    const made: JobRecord[] = [];
    for (let i = 0; i < 33; i++) {
      const j = finishedJob('pages-agent', i);
      await svc.services.stores.jobs.insert(j);
      made.push(j);
    }
    for (let i = 0; i < 3; i++) await svc.services.stores.jobs.insert(finishedJob('another-agent', i));
    const main = 'pages: list my finished jobs';
    const outputs: any[] = [];
    const keep = (body: any) => outputs.push(lastToolOutput(body));
    model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('list_background_jobs', { status: 'stop' })] },
          (body) => (keep(body), { output: [message('first page read')] }),
          // After the restart: the rest with the reference, a mismatched filter, an altered reference.
          () => ({ output: [functionCall('list_background_jobs', { page: outputs[0].next_page })] }),
          (body) => (keep(body), { output: [functionCall('list_background_jobs', { page: outputs[0].next_page, status: 'live' })] }),
          (body) => (keep(body), { output: [functionCall('list_background_jobs', { page: `${outputs[0].next_page.slice(0, -1)}!` })] }),
          (body) => (keep(body), { output: [message('all read')] }),
        ],
      }),
    );
    const first = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'pages-agent', tools: ['jobs'] });
    expect(first.body).toMatchObject({ status: 'completed', output_text: 'first page read' });
    const newestFirst = [...made].reverse();
    expect(outputs[0].jobs.map((j: any) => j.job_id)).toEqual(newestFirst.slice(0, 32).map((j) => j.id));
    expect(outputs[0].next_page).toMatch(/^page_[A-Za-z0-9_-]{23}$/);

    await svc.close({ keepData: true });
    svc = await start();
    const second = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'the rest', previous_turn_id: first.body.id, agent_id: 'pages-agent', tools: ['jobs'] });
    expect(second.body).toMatchObject({ status: 'completed', output_text: 'all read' });
    const [, rest, mismatch, altered] = outputs;
    expect(rest).toEqual({ jobs: [{ job_id: made[0].id, title: 'Job 0', status: 'succeeded' }], next_page: null });
    expect(mismatch).toMatch(/^Error: .*lists stop jobs; call without status or with status "stop"/);
    expect(altered).toMatch(/^Error: .*unknown page ".*": use a next_page exactly as a list_background_jobs call returned it/);
  }, 60_000);

  it('encode the filter and the last id, and refuse anything else', () => {
    const id = uuidv7();
    expect(decodePageRef(encodePageRef('live', id))).toEqual({ status: 'live', cursor: id });
    expect(decodePageRef(encodePageRef('stop', id))).toEqual({ status: 'stop', cursor: id });
    for (const bad of ['page_2', 'page_', `page_${Buffer.alloc(17, 2).toString('base64url')}`, `${encodePageRef('live', id)}x`, id]) expect(decodePageRef(bad), bad).toBeUndefined();
  });
});
