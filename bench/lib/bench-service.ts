/**
 * The real service for benches, in this process: createServices + buildApp on 127.0.0.1 (port 0)
 * with a temporary DATA_DIR (SQLite in WAL mode, as in production), pointed at a scripted
 * Responses server, with one no-op tool (`noop {n}` → `ok <n>`) as the turn's whole tool set, so
 * what is measured is the service around the tool, not a tool family.
 *
 * The service's modules are loaded from the build in dist/ — tsc's output, what `npm start` runs —
 * not from src/ through tsx: tsx compiles with esbuild's `keepNames`, which wraps every named
 * function and class in a `__name` call and would weigh on the service's side only (the raw loop
 * and the scripted server are the same on both sides; the SDK is plain JavaScript either way).
 * The bench npm scripts build first when the build is missing or older than the sources; run
 * directly, this module refuses a stale build (`npm run build`).
 * @throws at import when dist/ is missing or older than the sources.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const check = spawnSync(process.execPath, [path.join(root, 'scripts/start.mjs'), '--check']);
if (check.status !== 0) throw new Error('bench: the build in dist/ is missing or older than the sources: run `npm run build` first (the bench npm scripts do)');
process.setSourceMapsEnabled(true); // as scripts/start.mjs runs the service
const built = <T>(file: string): Promise<T> => import(pathToFileURL(path.join(root, 'dist', file)).href) as Promise<T>;
const [{ buildApp }, { loadConfig }, { createLogger }, { defineWorkerTool, textResult }, { createServices }] = await Promise.all([
  built<typeof import('../../src/app.js')>('src/app.js'),
  built<typeof import('../../src/config.js')>('src/config.js'),
  built<typeof import('../../src/log.js')>('src/log.js'),
  built<typeof import('../../src/runtime/tool.js')>('src/runtime/tool.js'),
  built<typeof import('../../src/services.js')>('src/services.js'),
]);
type Services = import('../../src/services.js').Services;

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
