/**
 * The real service for browser-facing tests: the e2e harness (test/e2e/support/service.ts —
 * createServices + buildApp on a random loopback port with a temporary DATA_DIR and a scripted
 * Responses server as its model), with LOG_LEVEL info and the log captured in memory (so tests
 * can check that no token ever reaches it) and the bubblewrap sandbox for computer tools.
 */
import { api, startTestService, type TestService } from '../../e2e/support/service.js';

export interface BrowserTestService extends TestService {
  port: number;
  /** Everything logged so far (pino JSON lines). */
  logText(): string;
}

export async function startService(opts: { modelBaseURL: string; env?: Record<string, string> }): Promise<BrowserTestService> {
  const chunks: string[] = [];
  const svc = await startTestService({
    modelBaseURL: opts.modelBaseURL,
    env: { LOG_LEVEL: 'info', COMPUTER_SANDBOX: 'bwrap', ...opts.env },
    logDestination: { write: (line: string) => void chunks.push(line) },
  });
  return { ...svc, port: Number(new URL(svc.url).port), logText: () => chunks.join('') };
}

/** JSON request to a full URL: status, headers and parsed body (see `api`). */
export function request(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  return api(url, init.method ?? 'GET', '', init.body, init.headers);
}
