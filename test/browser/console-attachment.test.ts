/**
 * The console page shows a reply attachment as a download link (real Chromium, real service with
 * bearer auth): the link carries the turn's stream token, and following it downloads the
 * snapshot with its file name.
 */
import { expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { useConsoleHarness } from './support/console-harness.js';

const WAIT = { timeout: 45_000 };
const h = useConsoleHarness({ bearer: 'console-attachment-bearer' });

it('shows an attachment as a download link that downloads the file', async () => {
  h.model.push(
    { output: [functionCall('write_file', { path: 'outbox/summary.md', content: '# Summary\n\nAll good.\n' })] },
    { output: [functionCall('reply_attachment', { path: 'outbox/summary.md' })] },
    { output: [message('The summary is attached.')] },
  );
  const page = await h.openConsole();
  await page.getByLabel('What should the agent do?').fill('Summarize and attach it.');
  await page.getByLabel('computer', { exact: true }).check();
  await page.getByRole('button', { name: 'Start turn' }).click();
  const link = page.locator('#attachments a.download');
  await link.waitFor(WAIT);
  expect(await link.textContent()).toBe('summary.md');
  const href = (await link.getAttribute('href'))!;
  expect(href).toMatch(/^\/v1\/turns\/[^/]+\/attachments\/att_[0-9a-f]{32}\?stream_token=/);
  const [download] = await Promise.all([page.waitForEvent('download', WAIT), link.click()]);
  expect(download.suggestedFilename()).toBe('summary.md');
  const body = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('# Summary\n\nAll good.\n');
  await page.close();
}, 120_000);
