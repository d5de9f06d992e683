/**
 * The turn console in real Chromium: "Recent turns" names each turn by the first line of its
 * input with its status and age; a turn opened while it runs shows its stored state at once
 * (status and rows from the event log, before any new live event), and a running command's
 * output streams into its row.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api } from '../e2e/support/service.js';
import { useConsoleHarness } from './support/console-harness.js';
import { gate } from './support/gate.js';

const BEARER = 'console-live-bearer-token';
const WAIT = { timeout: 45_000 };
const AUTH = { authorization: `Bearer ${BEARER}` };
const h = useConsoleHarness({ bearer: BEARER });

describe('turn console with a turn started elsewhere', () => {
  it('lists it by its first input line, opens it with its stored state and streams its command output', { timeout: 120_000 }, async () => {
    const finish = gate();
    const command = 'for i in $(seq 1 40); do echo "line $i"; sleep 0.5; done';
    h.model.push({ output: [functionCall('command', { command })] }, async () => {
      await finish.promise;
      return { output: [message('all lines printed')] };
    });
    const created = await api(h.svc.url, 'POST', '/v1/turns', { input: 'Print forty lines\nslowly, one by one', tools: ['computer'] }, AUTH);
    expect(created.status).toBe(202);
    const turnId: string = created.body.id;
    await expect.poll(async () => (await h.svc.services.eventLog.read(turnId, 0, 100)).some((e) => e.event.type === 'tool.progress'), WAIT).toBe(true);

    const page = await h.openConsole();
    const row = page.locator(`#recent li[data-turn-id="${turnId}"]`);
    await row.waitFor(WAIT);
    expect(await row.locator('.what').textContent()).toBe('Print forty lines');
    expect(await row.locator('.turn-status').textContent()).toBe('running');
    expect(await row.locator('.age').textContent()).toBe('just now');

    // Opened mid-command: status and the running row come from the stored events at once.
    await row.getByRole('button').click();
    await page.waitForFunction(() => document.getElementById('turn-status')?.textContent === 'Running…', undefined, { timeout: 5_000 });
    const tool = page.locator('#timeline li.tool').first();
    await tool.waitFor({ timeout: 5_000 });
    expect(await tool.getAttribute('data-state')).toBe('running');
    // The command's output streams into the row while it runs.
    const live = tool.locator('pre.live');
    await page.waitForFunction(() => /line 1\n/.test(document.querySelector('#timeline li.tool pre.live')?.textContent ?? ''), undefined, WAIT);
    expect(await live.isVisible()).toBe(true);
    await page.waitForFunction(() => /line (1[0-9]|[5-9])\n/.test(document.querySelector('#timeline li.tool pre.live')?.textContent ?? ''), undefined, WAIT);
    expect(await tool.getAttribute('data-state')).toBe('running');

    // Done: the completed row replaces the live output with the result.
    await page.waitForFunction(() => document.querySelector('#timeline li.tool')?.getAttribute('data-state') === 'done', undefined, WAIT);
    expect(await live.isHidden()).toBe(true);
    finish.open();
    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'completed', undefined, WAIT);
    await page.close();
  });
});
