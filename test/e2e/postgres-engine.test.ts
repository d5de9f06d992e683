/**
 * The real service with DATABASE_URL: schedules, workflows' store and brain pages live in a real
 * Postgres (migrated at start), /readyz says so; when the database goes away (a TCP proxy in front
 * of it is stopped) requests answer 503 `database_unavailable` — no crash — and the service
 * recovers by itself when it is back.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { describePostgres, freshSchema } from '../support/postgres.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { startService } from '../../src/main.js';
import { SchemaTooNewError } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations/index.js';

describePostgres('the service on Postgres', () => {
  let proxy: TcpProxy;
  let svc: TestService;
  let schemaUrl: string;
  let model: ScriptedResponsesServer; // /readyz is ready only with a model endpoint
  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    const { url } = await freshSchema();
    schemaUrl = url;
    const u = new URL(url);
    proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
    u.host = `127.0.0.1:${proxy.port}`;
    svc = await startTestService({
      modelBaseURL: model.baseURL,
      env: { DATABASE_URL: u.toString(), STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters', DATABASE_POOL_MAX: '3' },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await proxy?.close();
    await model?.close();
  });

  it('keeps brain pages in Postgres and reports the engine on /readyz', async () => {
    const put = await api(svc.url, 'PUT', '/v1/agents/pg/brain/pages/runbook', { title: 'Runbook', markdown: 'restart the service' });
    expect(put.status).toBe(201);
    const ready = await api(svc.url, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toMatchObject({ database: 'ok', engine: 'postgres' });
    const c = new pg.Client({ connectionString: schemaUrl });
    await c.connect();
    try {
      const { rows } = await c.query('SELECT slug, title FROM brain_pages');
      expect(rows).toEqual([{ slug: 'runbook', title: 'Runbook' }]);
      const versions = await c.query('SELECT max(version) AS v FROM schema_migrations');
      expect(versions.rows[0].v).toBe(Math.max(...MIGRATIONS.map((m) => m.version)));
    } finally {
      await c.end();
    }
  });

  it('answers 503 database_unavailable while the database is away, then recovers by itself', async () => {
    await proxy.stop();
    const down = await api(svc.url, 'GET', '/v1/agents/pg/brain/pages/runbook');
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('database_unavailable');
    const ready = await api(svc.url, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error).toMatchObject({ code: 'database_unavailable', details: { checks: { database: 'unavailable', engine: 'postgres' } } });
    const list = await api(svc.url, 'GET', '/v1/schedules');
    expect(list.status).toBe(503);
    expect((await api(svc.url, 'GET', '/healthz')).status).toBe(200); // the process is alive
    await proxy.start();
    const back = await api(svc.url, 'GET', '/v1/agents/pg/brain/pages/runbook');
    expect(back.status).toBe(200);
    expect(back.body.title).toBe('Runbook');
    expect((await api(svc.url, 'GET', '/readyz')).status).toBe(200);
  });

  it('refuses to start on a database whose schema is newer than the build, saying why', async () => {
    const { url } = await freshSchema();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    await c.query("INSERT INTO schema_migrations (version, name) VALUES (999, 'future')");
    await c.end();
    const err = await startService({
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pg-schema-newer-')), // svc holds its own DATA_DIR
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: url,
      STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters',
      COMPUTER_SANDBOX: 'none',
    }).then(
      (s) => s.close().then(() => undefined),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect((err as Error).message).toMatch(/schema is at version 999 but this build of the service knows versions up to \d+/);
  });
});
