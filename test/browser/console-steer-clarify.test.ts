/**
 * People in the loop on the turn console, in real Chromium:
 * - the steering box: while a turn runs a command, a message typed into "Message to the agent"
 *   reaches the model in its next request (exactly once), the page says when the agent got it, and
 *   the box goes away once the turn has finished; a message the turn ended before taking in is
 *   named, with why, in a status line that stays after the box has gone;
 * - a question (`clarify`): the page shows it with its suggested answers, and answering starts the
 *   next turn of the conversation, which the model receives after the question;
 * - model-written text a person reads and acts on — the question, its choices and the todo plan —
 *   shows control, separator, invisible and bidi characters as `\uXXXX` (the events carry them as
 *   the model wrote them), as the approval panel shows a call's arguments.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { readSse } from '../e2e/support/sse-client.js';
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

  it('shows the question, its choices and the plan with ESC, bidi and tag characters escaped, and answers with the text shown', { timeout: 120_000 }, async () => {
    const first = h.model.requests.length;
    const question = 'Deploy \u001B[31mnow\u001B[0m?\nPick \u202Eone';
    const tags = [...'rm'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    h.model.push(
      { output: [functionCall('todo', { todos: [{ id: '1', content: 'Ship invoice_\u202Egnp.exe', status: 'in_progress' }], merge: false })] },
      { output: [functionCall('clarify', { question, choices: [{ label: 'stag\u202Eing', description: 'safe \u2066copy\u2069' }, `prod${tags}`] }, { callId: 'call_q2' })] },
      { output: [message('Deploying.')] },
    );
    const page = await h.openConsole();
    await page.getByLabel('What should the agent do?').fill('Deploy the app');
    await page.getByLabel('todo', { exact: true }).check();
    await page.getByRole('button', { name: 'Start turn' }).click();
    await page.locator('#question-section').waitFor({ state: 'visible', ...WAIT });
    const asked = (await page.locator('#turn').getAttribute('data-turn-id'))!;

    expect(await page.locator('#question').textContent()).toBe('Deploy \\u001B[31mnow\\u001B[0m?\nPick \\u202Eone');
    expect(await page.locator('#question-choices button').allTextContents()).toEqual(['stag\\u202Eing', 'prod\\uDB40\\uDC72\\uDB40\\uDC6D']);
    expect(await page.locator('#question-choices li').first().textContent()).toBe('stag\\u202Eing safe \\u2066copy\\u2069');
    expect(await page.locator('#question-choices button').first().getAttribute('title')).toBe('safe \\u2066copy\\u2069');
    await page.waitForFunction(() => document.querySelector('#plan li .text')?.textContent !== undefined, undefined, WAIT);
    expect(await page.locator('#plan li .text').allTextContents()).toEqual(['Ship invoice_\\u202Egnp.exe']);
    const shown = await page.locator('#question-section, #plan-section').evaluateAll((els) => els.map((e) => e.textContent).join(''));
    expect(shown).not.toMatch(/[\u001B\u202E\u2066\u2069\u{E0000}-\u{E007F}]/u);

    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'completed', undefined, WAIT);
    // The events carry the model's text as written; only the page escapes it.
    const logged = await readSse(`${h.svc.url}/v1/turns/${asked}/events`, { headers: { authorization: `Bearer ${BEARER}` } });
    const clarify = logged.events.find((e) => e.event === 'presentation' && e.json.event?.type === 'clarify');
    expect(clarify?.json.event).toMatchObject({ question, choices: [{ label: 'stag\u202Eing', description: 'safe \u2066copy\u2069' }, { label: `prod${tags}` }] });
    await page.getByRole('button', { name: 'stag\\u202Eing', exact: true }).click();
    expect(await page.getByLabel('Your answer').inputValue()).toBe('stag\\u202Eing');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.waitForFunction((id) => { const t = document.getElementById('turn'); return !!t && t.dataset.turnId !== id && t.dataset.status === 'completed'; }, asked, WAIT);
    const reqs = h.model.requests.slice(first).map((r) => r.body.input as { role?: string; content?: unknown }[]);
    expect(reqs.at(-1)!.at(-1)).toMatchObject({ role: 'user', content: 'stag\\u202Eing' });
    await page.close();
  });
});
