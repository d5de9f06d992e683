/**
 * Launch Debian's Chromium (/usr/bin/chromium) headless through playwright-core (no browser
 * download), with a fresh user-data dir per launch, flags that keep it quiet on a shared CI box.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A new headless Chromium with its own temporary profile; `close()` removes the profile. */
export async function launchChromium(options: { width?: number; height?: number } = {}): Promise<LaunchedBrowser> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: options.width ?? 1000, height: options.height ?? 900 },
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
