/**
 * People in the loop on the turn console, in real Chromium:
 * - the steering box: while a turn runs a command, a message typed into "Message to the agent"
 *   reaches the model in its next request (exactly once), the page says when the agent got it, and
 *   the box goes away once the turn has finished; a message the turn ended before taking in is
 *   named, with why, in a status line that stays after the box has gone;
 * - a question (`clarify`): the page shows it with its suggested answers, and answering starts the
 *   next turn of the conversation, which the model receives after the question.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { useConsoleHarness } from './support/console-harness.js';

const BEARER = 'console-steer-bearer-token';
const WAIT = { timeout: 45_000 };
const h = useConsoleHarness({ bearer: BEARER });

describe('turn console steering box', () => {
  it('sends a message into a running turn; the model gets it once in its next request', { timeout: 120_000 }, async () => {
    const first = h.model.requests.length;
    h.model.push(
      { output: [functionCall('command', { command: 'sleep 3; echo built' })] },
      { output: [message('Built, and deployed to staging as you asked.')] },
    );
    const page = await h.openConsole();
    await page.getByLabel('What should the agent do?').fill('Build and deploy');
    await page.getByLabel('computer', { exact: true }).check();
    await page.getByRole('button', { name: 'Start turn' }).click();
    await page.locator('#timeline li.tool[data-state="running"]').first().waitFor(WAIT);

    const box = page.getByLabel('Message to the agent');
    await box.waitFor({ state: 'visible', ...WAIT });
    await box.fill('Deploy to staging, not production.');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.waitForFunction(() => /Message sent/.test(document.getElementById('steer-status')?.textContent ?? ''), undefined, WAIT);
    expect(await box.inputValue()).toBe('');

    await page.waitForFunction(() => document.getElementById('steer-status')?.textContent === 'Your message was given to the agent.', undefined, WAIT);
    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'completed', undefined, WAIT);
    expect(await page.locator('#steer-form').isHidden()).toBe(true);

    const reqs = h.model.requests.slice(first).map((r) => r.body.input as { role?: string; content?: unknown }[]);
    expect(reqs).toHaveLength(2);
    const count = (input: { role?: string; content?: unknown }[]) => input.filter((i) => i.role === 'user' && JSON.stringify(i.content).includes('Deploy to staging, not production.')).length;
    expect(reqs.map(count)).toEqual([0, 1]);
    await page.close();
  });

  it('says which message the agent never got, and why, once the turn ends before taking it in; the status stays after the box goes', { timeout: 120_000 }, async () => {
    h.model.push({ output: [functionCall('command', { command: 'sleep 30; echo done' })] });
    const page = await h.openConsole();
    await page.getByLabel('What should the agent do?').fill('Run the long migration');
    await page.getByLabel('computer', { exact: true }).check();
    await page.getByRole('button', { name: 'Start turn' }).click();
    await page.locator('#timeline li.tool[data-state="running"]').first().waitFor(WAIT);

    await page.getByLabel('Message to the agent').fill('Skip the audit table.');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.waitForFunction(() => /Message sent/.test(document.getElementById('steer-status')?.textContent ?? ''), undefined, WAIT);
    await page.getByRole('button', { name: 'Cancel turn' }).click();
    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'cancelled', undefined, WAIT);

    expect(await page.locator('#steer-form').isHidden()).toBe(true);
    const status = page.locator('#steer-status');
    expect(await status.isVisible()).toBe(true);
    expect(await status.textContent()).toBe('Not given to the agent: "Skip the audit table." — the turn was cancelled first. If a new turn interrupted this one, that turn got it; otherwise send it again in a new turn.');
    await page.close();
  });

  it('shows the agent\'s question with its choices; the answer continues the conversation in a new turn', { timeout: 120_000 }, async () => {
    const first = h.model.requests.length;
    const question = 'Which environment should I deploy to?';
    h.model.push(
      { output: [message('Before I deploy:'), functionCall('clarify', { question, choices: ['staging', { label: 'production', description: 'live traffic' }] }, { callId: 'call_q' })] },
      { output: [message('Deploying to staging.')] },
    );
    const page = await h.openConsole();
    await page.getByLabel('What should the agent do?').fill('Deploy the app');
    await page.getByRole('button', { name: 'Start turn' }).click();
    await page.locator('#question-section').waitFor({ state: 'visible', ...WAIT });
    const asked = (await page.locator('#turn').getAttribute('data-turn-id'))!;
    expect(await page.locator('#question').textContent()).toBe(question);
    expect(await page.locator('#question-choices button').allTextContents()).toEqual(['staging', 'production']);
    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'completed', undefined, WAIT);
    expect(await page.locator('#turn-error').isHidden()).toBe(true); // a question is not an error

    await page.getByRole('button', { name: 'staging', exact: true }).click();
    expect(await page.getByLabel('Your answer').inputValue()).toBe('staging');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.waitForFunction((id) => { const t = document.getElementById('turn'); return !!t && t.dataset.turnId !== id && t.dataset.status === 'completed'; }, asked, WAIT);
    expect(await page.locator('#question-section').isHidden()).toBe(true);

    const reqs = h.model.requests.slice(first).map((r) => r.body.input as { type?: string; role?: string; call_id?: string; content?: unknown }[]);
    expect(reqs).toHaveLength(2);
    const answerTurn = reqs[1];
    expect(answerTurn.some((i) => i.type === 'function_call_output' && i.call_id === 'call_q')).toBe(true);
    expect(answerTurn.at(-1)).toMatchObject({ role: 'user', content: 'staging' });
    await page.close();
  });
});
