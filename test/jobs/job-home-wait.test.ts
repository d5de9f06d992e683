/**
 * A main turn's file tool kept waiting for the agent's home by a background job's command says
 * what it waits for, through the HTTP API with the scripted model (the real openai SDK over
 * loopback), a real command in the sandbox and the real SSE client: while the job's `sleep` holds
 * the home, the main turn's `ls` streams a `tool.progress` naming the job (title and id) after
 * about a second, then lists the home once the command has ended.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { job, routedEntries, waitFor } from './support.js';

const harness = useScriptedService();

describe("waiting for the agent's home", () => {
  it("a main turn's ls waiting on a background job's command streams a tool.progress naming the job", async () => {
    const base = harness.svc.url;
    const main = 'home-wait: start the sleeper';
    const task = 'home-wait task: sleep';
    harness.model.push(
      ...routedEntries({
        [main]: [{ output: [functionCall('create_background_job', { title: 'Sleeper "nightly"', task, notify: false })] }, { output: [message('started')] }],
        [task]: [{ output: [functionCall('command', { command: 'touch sleeping && sleep 5 && echo woke' })] }, { output: [message('slept')] }],
        'home-wait: list': [{ output: [functionCall('ls', {}, { callId: 'call_ls' })] }, { output: [message('listed')] }],
      }),
    );
    const created = await api(base, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'home-wait', tools: ['jobs', 'computer'] });
    expect(created.body.status).toBe('completed');
    const jobId = (await api(base, 'GET', '/v1/jobs?agent_id=home-wait')).body.data[0].id;
    // The job's command is running (it made its file) and holds the home.
    await waitFor(() => existsSync(path.join(harness.svc.dataDir, 'agents', 'home-wait', 'home', 'sleeping')) || undefined);

    const t0 = Date.now();
    const r = await readSse(`${base}/v1/turns`, { method: 'POST', body: { input: 'home-wait: list', agent_id: 'home-wait', tools: ['computer'] }, timeoutMs: 30_000 });
    expect(r.status).toBe(200);
    const types = r.events.filter((e) => e.json.call_id === 'call_ls').map((e) => e.event);
    expect(types).toEqual(['tool.started', 'tool.progress', 'tool.completed']);
    const progress = r.events.find((e) => e.event === 'tool.progress')!.json;
    const holder = `a command of background job "Sleeper \\"nightly\\"" (${jobId})`;
    expect(progress).toMatchObject({
      type: 'tool.progress',
      call_id: 'call_ls',
      message: `waiting for the agent's home: ${holder} is running; this call goes on when it ends`,
      data: { kind: 'waiting_for_home', holder },
    });
    const completed = r.events.find((e) => e.event === 'tool.completed' && e.json.call_id === 'call_ls')!.json;
    expect(completed.is_error).toBe(false);
    expect(completed.output).toContain('sleeping');
    expect(Date.now() - t0).toBeGreaterThan(1000);
    await waitFor(async () => ((await job(base, jobId)).status === 'succeeded' ? true : undefined), 20_000);
  });
});
