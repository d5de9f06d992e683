/**
 * Test harness: the real service (createServices + buildApp) on a random loopback port with a
 * temporary DATA_DIR, optionally pointed at a scripted Responses server (test/support/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { createServices, type Services, type ServicesOverrides } from '../../../src/services.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { freshSchema } from '../../support/postgres.js';

export interface TestService {
  url: string;
  app: FastifyInstance;
  services: Services;
  dataDir: string;
  /** Stop the service (and remove DATA_DIR unless keepData). */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

export interface TestServiceOptions {
  /** Scripted model base URL (`server.baseURL`); omitted → no model configured. */
  modelBaseURL?: string;
  env?: Record<string, string>;
  dataDir?: string;
  overrides?: ServicesOverrides;
  /** Where log lines go (default: none unless LOG_LEVEL is set in env). */
  logDestination?: { write(line: string): void };
}

export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'turns-e2e-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    MODEL: 'scripted-model',
    MODEL_MAX_RETRIES: '0',
    ...(opts.modelBaseURL ? { OPENAI_BASE_URL: opts.modelBaseURL, OPENAI_API_KEY: 'test-key' } : {}),
    ...opts.env,
  };
  const config = loadConfig(env);
  const services = createServices(config, createLogger(config.LOG_LEVEL, opts.logDestination), opts.overrides);
  await services.start();
  const app = await buildApp(services);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    services,
    dataDir,
    async close({ keepData = false } = {}) {
      await services.turns.stop(1000);
      await app.close();
      await services.stop();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The scripted model and the service using it, both started by {@link useScriptedService}. */
export interface ScriptedServiceHarness {
  /** Set in `beforeAll`; read it inside hooks and tests only. */
  readonly model: ScriptedResponsesServer;
  /** Set in `beforeAll`; read it inside hooks and tests only. */
  readonly svc: TestService;
}

/**
 * Register `beforeAll`/`afterAll` hooks for the current file (or describe block) that start a
 * scripted Responses server and the service pointed at it (`opts` as for
 * {@link startTestService}), and stop both afterwards (service first). Returns the handle whose
 * `model` and `svc` are filled in once the hook has run.
 */
export function useScriptedService(opts: Omit<TestServiceOptions, 'modelBaseURL'> = {}): ScriptedServiceHarness {
  const harness = {} as { model: ScriptedResponsesServer; svc: TestService };
  beforeAll(async () => {
    harness.model = await startScriptedResponsesServer();
    harness.svc = await startTestService({ ...opts, modelBaseURL: harness.model.baseURL });
  });
  afterAll(async () => {
    await harness.svc?.close();
    await harness.model?.close();
  });
  return harness;
}

/**
 * {@link useScriptedService} on one store engine: `sqlite` (the service's own database) or
 * `postgres` (a fresh schema of the test cluster, test/support/postgres.ts, with the
 * STREAM_TOKEN_SECRET several instances need). Call it inside a `describePostgres` block for
 * `postgres`: the schema is made in `beforeAll`.
 */
export function useEngineService(engine: 'sqlite' | 'postgres'): ScriptedServiceHarness {
  const harness = {} as { model: ScriptedResponsesServer; svc: TestService };
  beforeAll(async () => {
    harness.model = await startScriptedResponsesServer();
    const env: Record<string, string> = engine === 'postgres' ? { DATABASE_URL: (await freshSchema()).url, STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters' } : {};
    harness.svc = await startTestService({ modelBaseURL: harness.model.baseURL, env });
  });
  afterAll(async () => {
    await harness.svc?.close();
    await harness.model?.close();
  });
  return harness;
}

/** JSON request helper: returns status, headers and parsed body. */
export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
