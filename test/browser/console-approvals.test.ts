/**
 * The console page shows calls waiting for approval (real Chromium, real service with bearer
 * auth, APPROVAL_POLICY asking before `write_file`): the pending call appears with its label and
 * arguments; Approve runs it and the turn completes; Reject with a reason gives the model that
 * reason and the call never runs. A reload while waiting shows the pending call again (from the
 * replayed event log).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { useConsoleHarness } from './support/console-harness.js';

const WAIT = { timeout: 45_000 };
const h = useConsoleHarness({ bearer: 'console-approvals-bearer', env: { APPROVAL_POLICY: 'write_file=always' } });

function outputFor(body: ResponsesRequestBody, callId: string): string {
  const o = (body.input as { type?: string; call_id?: string; output?: unknown }[]).find((i) => i.type === 'function_call_output' && i.call_id === callId);
  return String(o?.output);
}

it('a turn waiting for approval is approved from the page and completes', async () => {
  h.model.push(
    { output: [functionCall('write_file', { path: 'from-console.txt', content: 'approved in the browser' }, { callId: 'call_cb1' })] },
    (body) => ({ output: [message(`Done: ${outputFor(body, 'call_cb1')}`)] }),
  );
  const page = await h.openConsole();
  await page.getByLabel('What should the agent do?').fill('Write the file.');
  await page.getByLabel('computer', { exact: true }).check();
  await page.getByRole('button', { name: 'Start turn' }).click();

  const row = page.locator('#approvals li.approval');
  await row.waitFor(WAIT);
  expect(await page.locator('#turn-status').textContent()).toBe('Waiting for your approval');
  expect(await row.locator('.what').textContent()).toBe('Writing from-console.txt');
  expect(JSON.parse((await page.getByLabel('Arguments of Writing from-console.txt').textContent())!)).toEqual({ path: 'from-console.txt', content: 'approved in the browser' });

  // A reload while waiting shows the same pending call (replayed from the log).
  await page.reload();
  await page.locator('#approvals li.approval').waitFor(WAIT);

  await page.getByRole('button', { name: 'Approve: Writing from-console.txt' }).click();
  await page.locator('#turn[data-status="completed"]').waitFor(WAIT);
  expect(await page.locator('#approvals-section').isHidden()).toBe(true);
  expect(await page.locator('#timeline li.tool').first().getAttribute('data-state')).toBe('done');
  expect(await page.locator('#timeline li.message').last().textContent()).toBe('Done: created from-console.txt (1 line, 23 bytes)');
  expect(readFileSync(path.join(h.svc.dataDir, 'agents', 'default', 'home', 'from-console.txt'), 'utf8')).toBe('approved in the browser');
  await page.close();
}, 120_000);

it('Reject with a reason: the model reads the reason and the call never runs', async () => {
  h.model.push(
    { output: [functionCall('write_file', { path: 'rejected.txt', content: 'no' }, { callId: 'call_cb2' })] },
    (body) => ({ output: [message(`Understood. ${outputFor(body, 'call_cb2')}`)] }),
  );
  const page = await h.openConsole();
  await page.getByLabel('What should the agent do?').fill('Write another file.');
  await page.getByLabel('computer', { exact: true }).check();
  await page.getByRole('button', { name: 'Start turn' }).click();
  await page.locator('#approvals li.approval').waitFor(WAIT);
  await page.getByLabel('Reason (shown to the agent if you reject)').fill('wrong folder');
  await page.getByRole('button', { name: 'Reject: Writing rejected.txt' }).click();
  await page.locator('#turn[data-status="completed"]').waitFor(WAIT);
  const tool = page.locator('#timeline li.tool').first();
  expect(await tool.getAttribute('data-state')).toBe('error');
  expect(await tool.locator('.output').textContent()).toBe('Error: the user rejected this call: wrong folder');
  expect(await page.locator('#timeline li.message').last().textContent()).toBe('Understood. Error: the user rejected this call: wrong folder');
  expect(existsSync(path.join(h.svc.dataDir, 'agents', 'default', 'home', 'rejected.txt'))).toBe(false);
  await page.close();
}, 120_000);

it('shows a call\'s arguments with a bidi override escaped, so what is approved reads as what runs', async () => {
  const args = { path: 'notes.txt', content: 'ls -la\n\u202E; rm -rf outbox #' };
  h.model.push(
    { output: [functionCall('write_file', args, { callId: 'call_cb3' })] },
    (body) => ({ output: [message(`Noted. ${outputFor(body, 'call_cb3')}`)] }),
  );
  const page = await h.openConsole();
  await page.getByLabel('What should the agent do?').fill('Write the notes.');
  await page.getByLabel('computer', { exact: true }).check();
  await page.getByRole('button', { name: 'Start turn' }).click();
  await page.locator('#approvals li.approval').waitFor(WAIT);
  const shown = (await page.getByLabel('Arguments of Writing notes.txt').textContent())!;
  expect(shown).not.toMatch(/\u202E/u);
  expect(shown).toContain('"ls -la\\n\\u202E; rm -rf outbox #"');
  expect(JSON.parse(shown)).toEqual(args);
  await page.getByRole('button', { name: 'Reject: Writing notes.txt' }).click();
  await page.locator('#turn[data-status="completed"]').waitFor(WAIT);
  await page.close();
}, 120_000);
