/**
 * The console's background jobs panel in real Chromium, with bearer auth (so the job stream opens
 * with its job-scoped stream token): it lists the agent's jobs, opens one that waits for an answer
 * and shows its question (a bidi control in it escaped as `\u202E`), sends the answer, and follows the resumed job live to its success; a job
 * whose command waits for approval shows the call and is approved from the panel; a job's own turn,
 * opened as a turn, offers no message box or cancel button (the service refuses both with 409
 * `turn_owned`) and names the job instead.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api } from '../e2e/support/service.js';
import { useConsoleHarness } from './support/console-harness.js';
import { lastToolOutput, routedEntries } from '../jobs/support.js';

const BEARER = 'console-jobs-bearer-token';
const WAIT = { timeout: 45_000 };
const AUTH = { authorization: `Bearer ${BEARER}` };
const h = useConsoleHarness({ bearer: BEARER });

describe('console background jobs panel', () => {
  it('lists the jobs, shows a waiting job question, sends the answer and follows the job to its success', { timeout: 120_000 }, async () => {
    const main = 'console: paint the fence';
    const task = 'console task: paint the fence, ask for the color';
    let jobId = '';
    h.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Paint the fence', task, notify: false })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('painting in the background')] };
          },
        ],
        [task]: [
          { output: [functionCall('clarify', { question: 'Which \u202Ecolor?' })] },
          (body) => ({ output: [message(`Painted it ${(body.input as any[]).filter((i) => i.role === 'user').at(-1).content}.`)] }),
        ],
      }),
    );
    const created = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'console-jobs', tools: ['jobs'] }, AUTH);
    expect(created.body.status).toBe('completed');
    await expect.poll(async () => (await api(h.svc.url, 'GET', `/v1/jobs/${jobId}`, undefined, AUTH)).body.status, WAIT).toBe('waiting_on_user');

    const page = await h.openConsole();
    await page.locator('#agent-id').fill('console-jobs');
    await page.locator('#agent-id').dispatchEvent('change');
    const row = page.locator(`#jobs li[data-job-id="${jobId}"]`);
    await row.waitFor(WAIT);
    expect(await row.locator('.what').textContent()).toBe('Paint the fence');
    expect(await row.locator('.job-status').textContent()).toBe('waiting_on_user');
    await row.getByRole('button').click();
    await page.waitForFunction(() => document.getElementById('job-status')?.textContent === 'Waiting for your answer', undefined, WAIT);
    // The model's question, with its U+202E shown escaped.
    expect(await page.locator('#job-question').textContent()).toBe('The job asks: Which \\u202Ecolor?');
    await page.waitForFunction(() => Array.from(document.querySelectorAll('#job-activity li')).some((li) => li.textContent === 'Asked: Which \\u202Ecolor?'), undefined, WAIT);

    await page.locator('#job-message').fill('blue');
    await page.locator('#job-send').click();
    await page.waitForFunction(() => document.getElementById('job')?.dataset.status === 'succeeded', undefined, WAIT);
    const rows = await page.locator('#job-activity li').allTextContents();
    expect(rows).toContain('You: blue');
    expect(rows).toContain('Resumed (start 2)');
    expect(rows).toContain('Painted it blue.');
    expect(await page.locator('#job-status').textContent()).toBe('Succeeded');
    expect(await page.locator('#job-stop').isDisabled()).toBe(true);
    expect(h.svc.logText()).not.toContain(BEARER);
    await page.close();
  });

  it('shows a job waiting for approval with its call, and approving it there lets the job finish', { timeout: 120_000 }, async () => {
    const main = 'console: a job under approvals';
    const task = 'console task: run a command that needs approval';
    let jobId = '';
    h.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Guarded command', task, notify: false })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('started')] };
          },
        ],
        [task]: [
          { output: [functionCall('command', { command: 'echo from-the-console' }, { callId: 'call_console' })] },
          (body) => ({ output: [message(`ran: ${String(lastToolOutput(body)).split('\n').slice(1).join('').trim()}`)] }),
        ],
      }),
    );
    const created = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'console-jobs-approve', tools: ['jobs', 'computer'], approvals: { command: 'always' } }, AUTH);
    expect(created.body.status).toBe('completed');
    await expect.poll(async () => (await api(h.svc.url, 'GET', `/v1/jobs/${jobId}`, undefined, AUTH)).body.status, WAIT).toBe('waiting_on_approval');

    const page = await h.openConsole();
    await page.locator('#agent-id').fill('console-jobs-approve');
    await page.locator('#agent-id').dispatchEvent('change');
    const row = page.locator(`#jobs li[data-job-id="${jobId}"]`);
    await row.waitFor(WAIT);
    expect(await row.locator('.job-status').textContent()).toBe('waiting_on_approval');
    await row.getByRole('button').click();
    await page.waitForFunction(() => document.getElementById('job-status')?.textContent === 'Waiting for your approval', undefined, WAIT);
    const call = page.locator('#job-approvals li[data-call-id="call_console"]');
    await call.waitFor(WAIT);
    expect(await call.locator('.what').textContent()).toMatch(/^command: .*echo from-the-console/);
    await call.getByRole('button', { name: /^Approve/ }).click();
    await page.waitForFunction(() => document.getElementById('job')?.dataset.status === 'succeeded', undefined, WAIT);
    const rows = await page.locator('#job-activity li').allTextContents();
    expect(rows).toContain('Decided; running again');
    expect(rows).toContain('ran: from-the-console');
    expect(await page.locator('#job-approvals').isHidden()).toBe(true);
    await page.close();
  });

  it('offers no message box or cancel button for a job\'s own turn; it names the job whose controls to use instead', { timeout: 120_000 }, async () => {
    const main = 'console: a job whose turn is opened';
    const task = 'console task: wait for approval while its turn is opened';
    let jobId = '';
    h.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Owned turn', task, notify: false })] },
          (body) => {
            jobId = lastToolOutput(body).job_id;
            return { output: [message('started')] };
          },
        ],
        [task]: [{ output: [functionCall('command', { command: 'echo owned' }, { callId: 'call_owned' })] }, { output: [message('done')] }],
      }),
    );
    const created = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'console-jobs-owned', tools: ['jobs', 'computer'], approvals: { command: 'always' } }, AUTH);
    expect(created.body.status).toBe('completed');
    await expect.poll(async () => (await api(h.svc.url, 'GET', `/v1/jobs/${jobId}`, undefined, AUTH)).body.status, WAIT).toBe('waiting_on_approval');
    const turnId: string = (await api(h.svc.url, 'GET', `/v1/jobs/${jobId}`, undefined, AUTH)).body.pending_approvals[0].turn_id;
    const steered = await api(h.svc.url, 'POST', `/v1/turns/${turnId}/messages`, { content: 'hello' }, AUTH);
    expect(steered.status).toBe(409);
    expect(steered.body.error.code).toBe('turn_owned');

    const page = await h.openConsole();
    await page.locator(`#recent li[data-turn-id="${turnId}"] button`).click(WAIT);
    await page.waitForFunction((id) => { const t = document.getElementById('turn'); return t?.dataset.turnId === id && t.dataset.status === 'waiting'; }, turnId, WAIT);
    expect(await page.locator('#steer-form').isHidden()).toBe(true);
    expect(await page.locator('#cancel').isHidden()).toBe(true);
    expect(await page.locator('#owner-note').textContent()).toBe(
      `This turn is run by background job ${jobId}: send it messages or stop it from the Background jobs panel (the job's own controls), not here.`,
    );

    // A turn of its own again shows both.
    h.model.push(...routedEntries({ 'Sleep a little': [{ output: [functionCall('command', { command: 'sleep 5' })] }, { output: [message('slept')] }] }));
    await page.getByLabel('What should the agent do?').fill('Sleep a little');
    await page.getByLabel('computer', { exact: true }).check();
    await page.getByRole('button', { name: 'Start turn' }).click();
    await page.locator('#timeline li.tool[data-state="running"]').first().waitFor(WAIT);
    expect(await page.locator('#steer-form').isVisible()).toBe(true);
    expect(await page.locator('#cancel').isVisible()).toBe(true);
    expect(await page.locator('#owner-note').isHidden()).toBe(true);
    await page.close();
  });
});
