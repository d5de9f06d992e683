/**
 * The turn console's steering box in real Chromium: while a turn runs a command, a message typed
 * into "Message to the agent" reaches the model in its next request (exactly once), the page says
 * when the agent got it, and the box goes away once the turn has finished.
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
});
