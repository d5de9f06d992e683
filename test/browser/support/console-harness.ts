/**
 * One set-up for console tests in real Chromium: a scripted Responses model, the real service with
 * bearer auth (test/browser/support/service.ts) and one browser, started in `beforeAll` and closed in
 * `afterAll` of the calling test file; `openConsole` opens `/console` in a new page and enters the
 * API token the way a person does (settings → API token → change).
 *
 * ```ts
 * const h = useConsoleHarness({ bearer: 'my-token' });
 * it('…', async () => { h.model.push(…); const page = await h.openConsole(); … });
 * ```
 */
import { afterAll, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { launchChromium, type LaunchedBrowser } from './chromium.js';
import { startService, type BrowserTestService } from './service.js';

export interface ConsoleHarness {
  readonly model: ScriptedResponsesServer;
  readonly svc: BrowserTestService;
  readonly browser: LaunchedBrowser;
  /** A new page on `<base>/console` [the service's URL] with `token` [the bearer] entered. */
  openConsole(opts?: { base?: string; token?: string }): Promise<Page>;
}

/** Register the harness's beforeAll/afterAll in the calling file; read its fields inside tests. */
export function useConsoleHarness(opts: { bearer: string; env?: Record<string, string> }): ConsoleHarness {
  let model: ScriptedResponsesServer | undefined;
  let svc: BrowserTestService | undefined;
  let browser: LaunchedBrowser | undefined;
  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    svc = await startService({ modelBaseURL: model.baseURL, env: { AUTH_TOKENS: opts.bearer, ...opts.env } });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    await model?.close();
  });
  const started = <T>(v: T | undefined, what: string): T => {
    if (!v) throw new Error(`console harness: ${what} is not started (read it inside a test, after beforeAll)`);
    return v;
  };
  return {
    get model() { return started(model, 'the model server'); },
    get svc() { return started(svc, 'the service'); },
    get browser() { return started(browser, 'the browser'); },
    async openConsole(o = {}) {
      const page = await started(browser, 'the browser').context.newPage();
      await page.goto(`${o.base ?? started(svc, 'the service').url}/console`);
      await enterToken(page, o.token ?? opts.bearer);
      return page;
    },
  };
}

/** Open the console's settings and enter `token` as the API token. */
export async function enterToken(page: Page, token: string): Promise<void> {
  await page.locator('.settings summary').click();
  await page.getByLabel('API token').fill(token);
  await page.getByLabel('API token').dispatchEvent('change');
}
