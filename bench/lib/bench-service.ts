/**
 * The real service for benches, in this process: createServices + buildApp on 127.0.0.1 (port 0)
 * with a temporary DATA_DIR (SQLite in WAL mode, as in production), pointed at a scripted
 * Responses server, with one no-op tool (`noop {n}` → `ok <n>`) as the turn's whole tool set, so
 * what is measured is the service around the tool, not a tool family.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { createServices, type Services } from '../../src/services.js';

/** The bench tool's parameters, defined once per module as the tool families define theirs. */
const noopSchema = z.object({ n: z.number().int() });

/** The bench tool: sequential, not read-only (like most real tools), no activity row. */
export const noopTool = () =>
  defineWorkerTool({
    name: 'noop', description: 'Does nothing and answers ok.', schema: noopSchema,
    executionMode: 'sequential', describeActivity: (p) => `No-op ${p.n}`, execute: async (p) => textResult(`ok ${p.n}`),
  });

export interface BenchService {
  url: string;
  services: Services;
  /** The HTTP server (for probes of connection and request timing). */
  server: import('node:http').Server;
  close(): Promise<void>;
}

/** Start the service against `modelBaseURL`; `env` adds/overrides variables. */
export async function startBenchService(modelBaseURL: string, env: Record<string, string> = {}): Promise<BenchService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-service-'));
  const config = loadConfig({
    DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', MODEL: 'bench-model',
    MODEL_MAX_RETRIES: '0', OPENAI_BASE_URL: modelBaseURL, OPENAI_API_KEY: 'bench-key', MAX_STEPS: '500',
    ...env,
  });
  const services = createServices(config, createLogger(config.LOG_LEVEL), {
    assembleTools: async () => ({ tools: [noopTool()], unavailable: [], instructions: [] }),
  });
  await services.start();
  const app = await buildApp(services);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    server: app.server,
    async close() {
      await services.turns.stop(1000);
      await app.close();
      await services.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
