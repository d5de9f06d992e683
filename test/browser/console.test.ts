/**
 * The turn console (GET /console) in real Chromium against the real service (bearer auth on, so
 * the page's EventSource uses the stream token from links.events) with the scripted model, through
 * a TCP proxy that can cut the page's connections mid-turn.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { enterToken } from './support/console-harness.js';
import { launchChromium, type LaunchedBrowser } from './support/chromium.js';
import { startDropProxy, type DropProxy } from './support/drop-proxy.js';
import { gate } from './support/gate.js';
import { startService, type BrowserTestService } from './support/service.js';

const BEARER = 'console-test-bearer-token';
const OUT = 'test-output';
const WAIT = { timeout: 45_000 };

let model: ScriptedResponsesServer;
let svc: BrowserTestService;
let proxy: DropProxy;
let browser: LaunchedBrowser;

/** Records every text each tool row's label ever showed, per call id, in order. */
const LABEL_RECORDER = `
  window.__labels = {};
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver((records) => {
      for (const r of records) {
        const span = r.target;
        if (!(span instanceof HTMLElement) || !span.classList.contains('label')) continue;
        const id = span.closest('li.tool').dataset.callId;
        const seen = (window.__labels[id] ??= []);
        for (const n of r.addedNodes) if (n.nodeType === 3 && seen[seen.length - 1] !== n.data) seen.push(n.data);
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
`;

const todos = (statuses: string[]) => ({
  todos: [
    { id: '1', content: 'Write the notes', status: statuses[0] },
    { id: '2', content: 'Read them back', status: statuses[1] },
  ],
  merge: false,
});

async function newPage(base = proxy.url): Promise<Page> {
  const page = await browser.context.newPage();
  await page.addInitScript(LABEL_RECORDER);
  await page.goto(`${base}/console`);
  await enterToken(page, BEARER);
  return page;
}

async function startFromPage(page: Page, input: string, families: string[]): Promise<string> {
  await page.getByLabel('What should the agent do?').fill(input);
  for (const f of families) await page.getByLabel(f, { exact: true }).check();
  await page.getByRole('button', { name: 'Start turn' }).click();
  await page.waitForFunction(() => document.getElementById('turn')?.dataset.turnId, undefined, WAIT);
  return (await page.locator('#turn').getAttribute('data-turn-id'))!;
}

const rowLabels = (page: Page) => page.locator('#timeline li.tool .label').allTextContents();

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  model = await startScriptedResponsesServer();
  svc = await startService({ modelBaseURL: model.baseURL, env: { AUTH_TOKENS: BEARER } });
  proxy = await startDropProxy(svc.port);
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await svc?.close();
  await model?.close();
});

describe('turn console in Chromium', () => {
  it('shows a turn live: rows in order, completed labels replacing running ones, the plan, and a resume after the stream drops with no duplicate or missing row', async () => {
    const afterFirstRound = gate();
    model.push(
      { output: [functionCall('todo', todos(['in_progress', 'pending'])), functionCall('write_file', { path: 'notes.txt', content: 'alpha\nbeta\n' })] },
      async () => {
        await afterFirstRound.promise;
        return { output: [functionCall('todo', todos(['completed', 'in_progress'])), functionCall('read_file', { path: 'notes.txt' })] };
      },
      { output: [functionCall('todo', todos(['completed', 'completed']))] },
      { output: [message('Both steps are done: notes.txt holds two lines, alpha and beta.', { chunks: ['Both steps are done: ', 'notes.txt holds two lines, ', 'alpha and beta.'] })] },
    );
    const page = await newPage();
    const turnId = await startFromPage(page, 'Write notes.txt with two lines, then read it back.', ['todo', 'computer']);

    // First round: the write_file row completes and the plan shows item 1 in progress.
    await page.locator('#timeline li.tool[data-state="done"]').first().waitFor(WAIT);
    expect(await rowLabels(page)).toEqual(['Created notes.txt (2 lines)']);
    await page.waitForFunction(() => document.querySelector('#plan li[data-status="in_progress"] .text')?.textContent === 'Write the notes', undefined, WAIT);
    expect(await page.locator('#plan li').evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.status))).toEqual(['in_progress', 'pending']);

    // The network drops; new connections are held, so the rest of the turn happens while the page is away.
    const loggedSoFar = String(await svc.services.eventLog.lastSeq(turnId));
    await expect.poll(() => page.locator('#turn').getAttribute('data-last-seq'), WAIT).toBe(loggedSoFar);
    const seqBeforeDrop = loggedSoFar;
    const requestsBeforeDrop = proxy.eventRequests();
    proxy.hold();
    expect(proxy.dropAll()).toBeGreaterThanOrEqual(1);
    await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'Reconnecting…', undefined, WAIT);
    afterFirstRound.open();
    const finished = await svc.services.turns.waitForTerminal(turnId);
    expect(finished.status).toBe('completed');
    expect(await rowLabels(page)).toEqual(['Created notes.txt (2 lines)']); // nothing arrived meanwhile
    await page.screenshot({ path: `${OUT}/console-reconnecting.png` });
    await expect.poll(() => page.locator('#connection').textContent()).toBe('Reconnecting…');

    // The network comes back: EventSource reconnects with Last-Event-ID and the page catches up.
    proxy.release();
    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'completed', undefined, WAIT);
    const lastSeq = await svc.services.eventLog.lastSeq(turnId);
    expect(Number(await page.locator('#turn').getAttribute('data-last-seq'))).toBe(lastSeq);
    expect(await rowLabels(page)).toEqual(['Created notes.txt (2 lines)', 'Read notes.txt (lines 1-2 of 2)']);
    expect(await page.locator('#timeline li.tool').count()).toBe(2);
    expect(await page.locator('#timeline li.message').allTextContents()).toEqual(['Both steps are done: notes.txt holds two lines, alpha and beta.']);
    expect(await page.locator('#plan li').evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.status))).toEqual(['completed', 'completed']);
    expect(await page.locator('#turn-status').textContent()).toBe('Completed');
    expect(await page.locator('#connection').textContent()).toBe('Stream finished');
    // The browser's EventSource resumed by itself, sending the last id it had seen.
    expect(proxy.lastEventIds().slice(requestsBeforeDrop)[0]).toBe(seqBeforeDrop);

    // Each row showed its running label first, then the completed label replaced it.
    const labels = (await page.evaluate(() => (window as unknown as { __labels: Record<string, string[]> }).__labels)) ?? {};
    expect(Object.values(labels)).toEqual([
      ['Writing notes.txt', 'Created notes.txt (2 lines)'],
      ['Reading notes.txt', 'Read notes.txt (lines 1-2 of 2)'],
    ]);

    // The result is one keyboard press away.
    await page.locator('#timeline li.tool summary').nth(1).focus();
    await page.keyboard.press('Enter');
    await page.locator('#timeline li.tool pre.output').nth(1).waitFor({ state: 'visible', ...WAIT });
    expect(await page.locator('#timeline li.tool pre.output').nth(1).textContent()).toContain('alpha');

    await page.screenshot({ path: `${OUT}/console-finished-turn.png`, fullPage: true });
    await page.setViewportSize({ width: 320, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await page.screenshot({ path: `${OUT}/console-finished-turn-320px.png`, fullPage: true });

    // Reopened from the recent list, the turn is replayed from the log: the same rows, once each.
    const again = await newPage();
    const recent = again.locator(`#recent li[data-turn-id="${turnId}"]`);
    await recent.waitFor(WAIT);
    expect(await recent.locator('.what').textContent()).toBe('Write notes.txt with two lines, then read it back.');
    await recent.getByRole('button').click();
    await again.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'completed', undefined, WAIT);
    // The stored status shows first; the rows follow as the log is replayed (later on a loaded machine).
    await expect.poll(() => rowLabels(again), WAIT).toEqual(['Created notes.txt (2 lines)', 'Read notes.txt (lines 1-2 of 2)']);
    await expect.poll(() => again.locator('#plan li').count(), WAIT).toBe(2);
    await page.close();
    await again.close();
  }, 120_000);

  it('cancels a running turn from the keyboard', async () => {
    const never = gate();
    model.push(
      { output: [functionCall('write_file', { path: 'draft.txt', content: 'draft\n' })] },
      async () => {
        await never.promise;
        return { output: [message('too late')] };
      },
    );
    const page = await newPage();
    const turnId = await startFromPage(page, 'Write a draft, then wait.', ['computer']);
    await page.locator('#timeline li.tool[data-state="done"]').first().waitFor(WAIT);
    await page.waitForFunction(() => !(document.getElementById('cancel') as HTMLButtonElement).disabled, undefined, WAIT);
    await page.locator('#cancel').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'cancelled', undefined, WAIT);
    expect(await page.locator('#turn-status').textContent()).toBe('Cancelled');
    expect(await page.locator('#cancel').isDisabled()).toBe(true);
    expect((await svc.services.turns.get(turnId))?.status).toBe('cancelled');
    await page.locator('#turn').screenshot({ path: `${OUT}/console-cancelled-turn.png` });
    never.open();
    await page.close();
  }, 120_000);

  it('says in plain words when the token is wrong', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${proxy.url}/console`);
    await enterToken(page, 'wrong-token');
    await page.getByLabel('What should the agent do?').fill('hello');
    await page.getByRole('button', { name: 'Start turn' }).click();
    await page.locator('#form-error').waitFor({ state: 'visible', ...WAIT });
    expect(await page.locator('#form-error').textContent()).toMatch(/needs an API token/);
    await page.close();
  }, 120_000);
});

describe('turn console when its stream token has expired', () => {
  let shortSvc: BrowserTestService;
  let shortProxy: DropProxy;

  beforeAll(async () => {
    shortSvc = await startService({ modelBaseURL: model.baseURL, env: { AUTH_TOKENS: BEARER, STREAM_TOKEN_TTL_S: '10' } });
    shortProxy = await startDropProxy(shortSvc.port);
  });

  afterAll(async () => {
    await shortProxy?.close();
    await shortSvc?.close();
  });

  it('fetches a fresh link and resumes after the last event it has, with no duplicate or missing row', async () => {
    const later = gate();
    model.push(
      { output: [functionCall('write_file', { path: 'slow.txt', content: 'one\ntwo\n' })] },
      async () => {
        await later.promise;
        return { output: [functionCall('read_file', { path: 'slow.txt' })] };
      },
      { output: [message('Read it back.')] },
    );
    const page = await newPage(shortProxy.url);
    const turnId = await startFromPage(page, 'Write slow.txt, wait, read it.', ['computer']);
    await page.locator('#timeline li.tool[data-state="done"]').first().waitFor(WAIT);
    const seqBefore = String(await shortSvc.services.eventLog.lastSeq(turnId));
    await expect.poll(() => page.locator('#turn').getAttribute('data-last-seq'), WAIT).toBe(seqBefore);

    // Let the page's stream token expire (TTL 10 s), then cut the connection and finish the turn.
    const firstLink = shortProxy.eventTargets()[0];
    const exp = Number(/stream_token=(\d+)\./.exec(firstLink)?.[1]);
    expect(exp).toBeGreaterThan(0);
    await expect.poll(() => Date.now() > exp * 1000 + 500, { timeout: 30_000, interval: 500 }).toBe(true);
    shortProxy.hold();
    shortProxy.dropAll();
    later.open();
    expect((await shortSvc.services.turns.waitForTerminal(turnId)).status).toBe('completed');
    shortProxy.release();

    await page.waitForFunction(() => document.getElementById('turn')?.dataset.status === 'completed', undefined, WAIT);
    expect(await rowLabels(page)).toEqual(['Created slow.txt (2 lines)', 'Read slow.txt (lines 1-2 of 2)']);
    expect(await page.locator('#timeline li.message').allTextContents()).toEqual(['Read it back.']);
    expect(await page.locator('#turn').getAttribute('data-last-seq')).toBe(String(await shortSvc.services.eventLog.lastSeq(turnId)));
    // The expired link was refused, and the page came back with a fresh token from after its last event.
    const targets = shortProxy.eventTargets();
    const fresh = targets.find((t) => t.includes(`after=${seqBefore}`));
    expect(fresh, targets.join('\n')).toBeDefined();
    expect(fresh).not.toContain(firstLink.split('stream_token=')[1]);
    await page.close();
  }, 120_000);
});
