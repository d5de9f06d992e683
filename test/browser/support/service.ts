/**
 * The real service (createServices + buildApp) on a random loopback port with a temporary
 * DATA_DIR, a scripted Responses server as its model, and the log captured in memory (so tests
 * can check that no token ever reaches it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { createServices, type Services } from '../../../src/services.js';

export interface BrowserTestService {
  url: string;
  port: number;
  app: FastifyInstance;
  services: Services;
  /** Everything logged so far (pino JSON lines). */
  logText(): string;
  close(): Promise<void>;
}

export async function startService(opts: { modelBaseURL: string; env?: Record<string, string> }): Promise<BrowserTestService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'console-e2e-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    MODEL: 'scripted-model',
    MODEL_MAX_RETRIES: '0',
    OPENAI_BASE_URL: opts.modelBaseURL,
    OPENAI_API_KEY: 'test-key',
    COMPUTER_SANDBOX: 'bwrap',
    ...opts.env,
  });
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const services = createServices(config, createLogger(config.LOG_LEVEL, sink));
  await services.start();
  const app = await buildApp(services);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    app,
    services,
    logText: () => chunks.join(''),
    async close() {
      await services.turns.stop(1000);
      await app.close();
      await services.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON request: status, headers and parsed body. */
export async function request(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}
