/**
 * The turn console in real Chromium shows what the model streams besides its answer: the
 * reasoning (`reasoning.delta`, replayed from a captured Responses stream) as a collapsed, dimmed
 * row before the answer, and a `model.warning` (calls made in the final answer after max_steps,
 * not run) as a visible row saying what happened.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api } from '../e2e/support/service.js';
import { useConsoleHarness } from './support/console-harness.js';

const BEARER = 'console-reasoning-bearer-token';
const WAIT = { timeout: 45_000 };
const AUTH = { authorization: `Bearer ${BEARER}` };
const h = useConsoleHarness({ bearer: BEARER });

describe('turn console with reasoning and a model warning', () => {
  it('shows the reasoning collapsed and dimmed, and the warning visible', { timeout: 120_000 }, async () => {
    h.model.push(
      { fixture: 'openai-reasoning-encrypted-content.1.chunks.txt' }, // reasoning summary, then a tool call
      { output: [message('The answer is 57.'), functionCall('calculator', { expression: '1+1' }, { callId: 'c_ignored' })] },
    );
    const created = await api(h.svc.url, 'POST', '/v1/turns?wait=true', { input: 'What is (12 + 7) * 3?', max_steps: 1 }, AUTH);
    expect(created.body).toMatchObject({ status: 'completed', stop_reason: 'max_steps' });
    const stored = (await h.svc.services.eventLog.read(created.body.id, 0, 1000)).map((e) => e.event.type);
    expect(stored).toContain('reasoning.delta');
    expect(stored).toContain('model.warning');

    const page = await h.openConsole();
    const row = page.locator(`#recent li[data-turn-id="${created.body.id}"]`);
    await row.waitFor(WAIT);
    await row.getByRole('button').click();
    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'completed', undefined, WAIT);

    const reasoning = page.locator('#timeline li.reasoning').first();
    await reasoning.waitFor({ timeout: 5_000 });
    expect(await reasoning.locator('summary').textContent()).toBe('Reasoning');
    // Collapsed: the text is there but not shown until opened; dimmed: the muted colour.
    const text = reasoning.locator('pre.text');
    expect(await text.textContent()).toContain('Calculating step-by-step');
    expect(await text.isVisible()).toBe(false);
    expect(await reasoning.evaluate((li) => getComputedStyle(li).color)).toBe(await page.evaluate(() => getComputedStyle(document.querySelector('.connection')!).color));
    await reasoning.locator('summary').click();
    expect(await text.isVisible()).toBe(true);
    // The reasoning comes before the answer.
    const kinds = await page.locator('#timeline > li').evaluateAll((lis) => lis.map((li) => li.className.split(' ')[0]));
    expect(kinds.indexOf('reasoning')).toBeLessThan(kinds.lastIndexOf('message'));

    const warning = page.locator('#timeline li.warning');
    await warning.waitFor({ timeout: 5_000 });
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.getAttribute('data-code')).toBe('tool_calls_ignored');
    expect(await warning.textContent()).toMatch(/^Model warning: /);
    await page.close();
  });
});
