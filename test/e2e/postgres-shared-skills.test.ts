/**
 * Installed skills shared by real service processes on one real Postgres: a skill installed on
 * instance A is listed by B and used by a turn B runs (unpacked into B's DATA_DIR by the turn
 * itself, with no request to B reading skills before), an instance started later unpacks it at
 * start, a replacement and a delete made on one instance are what every other instance answers
 * next (their local copies follow), enabled lists are shared, a local skill folder the
 * database does not know is moved aside at start, and while the database is away skill requests
 * answer 503 `database_unavailable` and an install cut by it leaves nothing behind.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { skillMd, tarGz, zipArchive } from '../support/archives.js';
import { describePostgres } from '../support/postgres.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { usePgInstances, type PgInstance } from './support/pg-instances.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

async function put(url: string, name: string, body: Buffer, type = 'application/gzip') {
  const res = await fetch(`${url}/v1/skills/${name}`, { method: 'PUT', headers: { 'content-type': type }, body: new Uint8Array(body) });
  return { status: res.status, body: (await res.json()) as any };
}

const names = async (url: string) => ((await api(url, 'GET', '/v1/skills')).body.data as { name: string }[]).map((s) => s.name);

describePostgres('installed skills shared by two instances on one Postgres', () => {
  const pg = usePgInstances({ name: 'skills', env: { TURN_LEASE_MS: '3000' } });

  /** Start an instance and remember its DATA_DIR. */
  async function start(name: string, prepare?: (dataDir: string) => void): Promise<PgInstance & { dataDir: string }> {
    let dataDir = '';
    const i = await pg.start(name, {
      prepare: (d) => {
        dataDir = d;
        prepare?.(d);
      },
    });
    return { ...i, dataDir };
  }

  it('installs on A; a turn B runs uses it; a later instance unpacks it; replace and delete on B reach the others', async () => {
    const [a, b] = await Promise.all([start('a'), start('b')]);
    const tgz = tarGz([
      { name: 'SKILL.md', data: skillMd('pdf-tools', 'Work with PDF files', '# PDF tools\n\nRun scripts/count.sh.\n') },
      { name: 'scripts/count.sh', data: '#!/bin/sh\necho 3\n', mode: 0o755 },
      { name: 'references/api.md', data: 'The PDF API reference.\n' },
    ]);
    const installed = await put(a.url, 'pdf-tools', tgz);
    expect(installed.status).toBe(201);
    expect((await api(a.url, 'PUT', '/v1/agents/reader/skills', { enabled: ['pdf-tools'] })).status).toBe(200);
    // B has not read any skill yet: nothing unpacked there.
    expect(existsSync(path.join(b.dataDir, 'skills', 'pdf-tools'))).toBe(false);

    // A stops, so B runs the turn. It names no `skills` (the agent's list, enabled on A, applies),
    // so nothing but the turn itself makes B read the skills.
    a.child.proc.kill('SIGTERM');
    expect(await a.child.exited).toBe(0);
    pg.model.push({ output: [functionCall('skill_view', { name: 'pdf-tools', file_path: 'references/api.md' }, { callId: 'view' })] }, { output: [message('read it')] });
    const before = pg.model.requests.length;
    const r = await readSse(`${b.url}/v1/turns`, { method: 'POST', body: { input: 'count the pages', agent_id: 'reader' }, timeoutMs: 60_000 });
    expect(r.status).toBe(200);
    expect(r.events.at(-1)!.event).toBe('turn.completed');
    expect(r.events[0].json.tools).toContain('skill_view');
    const done = r.events.filter((e) => e.event === 'tool.completed').map((e) => e.json);
    expect(done).toEqual([expect.objectContaining({ call_id: 'view', is_error: false, output: '<skill name="pdf-tools" location="skill://enabled/pdf-tools/references/api.md">\nThe PDF API reference.\n</skill>' })]);
    expect(pg.model.requests[before].body.instructions).toContain('- pdf-tools: Work with PDF files');
    expect(statSync(path.join(b.dataDir, 'skills', 'pdf-tools', 'scripts', 'count.sh')).mode & 0o777).toBe(0o755);

    // B lists it as A installed it; the enabled list is shared too.
    const onB = await api(b.url, 'GET', '/v1/skills/pdf-tools');
    expect(onB.body).toEqual({ ...installed.body });
    expect((await api(b.url, 'GET', '/v1/agents/reader/skills')).body).toEqual({ agent_id: 'reader', enabled: ['pdf-tools'] });

    // An instance started now unpacks it at start.
    const c = await start('c');
    expect(readFileSync(path.join(c.dataDir, 'skills', 'pdf-tools', 'references', 'api.md'), 'utf8')).toBe('The PDF API reference.\n');
    expect((await api(c.url, 'GET', '/v1/skills/pdf-tools')).body).toEqual(installed.body);

    // Replaced on B (200: it was installed, though not by B): C answers the new version and its copy follows.
    const zip = await zipArchive([{ name: 'SKILL.md', data: skillMd('pdf-tools', 'Work with PDF files, v2') }]);
    const replaced = await put(b.url, 'pdf-tools', zip, 'application/zip');
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ description: 'Work with PDF files, v2', files: ['SKILL.md'] });
    expect(replaced.body.installed_at > installed.body.installed_at).toBe(true);
    expect((await api(c.url, 'GET', '/v1/skills/pdf-tools')).body).toEqual(replaced.body);
    expect(existsSync(path.join(c.dataDir, 'skills', 'pdf-tools', 'scripts'))).toBe(false);

    // Deleted on B: gone from C's list and disk and from every agent's enabled list; a second delete anywhere is 404.
    expect((await put(c.url, 'notes', tarGz([{ name: 'SKILL.md', data: skillMd('notes', 'Take notes') }]))).status).toBe(201);
    expect((await api(c.url, 'PUT', '/v1/agents/reader/skills', { enabled: ['pdf-tools', 'notes'] })).status).toBe(200);
    expect((await api(b.url, 'DELETE', '/v1/skills/pdf-tools')).body).toEqual({ name: 'pdf-tools', deleted: true });
    expect((await api(c.url, 'GET', '/v1/agents/reader/skills')).body).toEqual({ agent_id: 'reader', enabled: ['notes'] });
    expect(await names(c.url)).not.toContain('pdf-tools');
    expect((await api(c.url, 'GET', '/v1/skills/pdf-tools')).status).toBe(404);
    expect(existsSync(path.join(c.dataDir, 'skills', 'pdf-tools'))).toBe(false);
    expect((await api(c.url, 'DELETE', '/v1/skills/pdf-tools')).body.error.code).toBe('skill_not_found');
    // A turn naming it is refused on any instance.
    const refused = await api(c.url, 'POST', '/v1/turns', { input: 'x', skills: ['pdf-tools'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('unknown_skill');
    expect(readdirSync(path.join(c.dataDir, 'skills')).filter((n) => n.startsWith('.'))).toEqual([]);
    // Installed again: enabled for nobody until a PUT says so.
    expect((await put(c.url, 'pdf-tools', tgz)).status).toBe(201);
    expect((await api(b.url, 'GET', '/v1/agents/reader/skills')).body.enabled).toEqual(['notes']);
  }, 240_000);

  it('moves aside at start a local skill folder the database does not know, and keeps it out of the list', async () => {
    const d = await start('d', (dataDir) => {
      mkdirSync(path.join(dataDir, 'skills', 'local-only'), { recursive: true });
      writeFileSync(path.join(dataDir, 'skills', 'local-only', 'SKILL.md'), skillMd('local-only', 'Installed before Postgres'));
    });
    expect(await names(d.url)).not.toContain('local-only');
    expect(existsSync(path.join(d.dataDir, 'skills', 'local-only'))).toBe(false);
    const aside = readdirSync(path.join(d.dataDir, 'skills-unshared'));
    expect(aside).toEqual([expect.stringMatching(/^local-only-\d+$/)]);
    expect(readFileSync(path.join(d.dataDir, 'skills-unshared', aside[0], 'SKILL.md'), 'utf8')).toContain('Installed before Postgres');
  }, 120_000);

  it('answers 503 database_unavailable while the database is away; an install it cut is not kept', async () => {
    const target = new URL(pg.env.DATABASE_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    try {
      const viaProxy = new URL(pg.env.DATABASE_URL);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      let dataDir = '';
      const e = await pg.start('e', { env: { DATABASE_URL: viaProxy.toString() }, prepare: (d) => (dataDir = d) });
      const skill = (name: string) => tarGz([{ name: 'SKILL.md', data: skillMd(name, `The ${name} skill`) }]);
      expect((await put(e.url, 'kept', skill('kept'))).status).toBe(201);
      await proxy.stop();
      for (const r of [
        await api(e.url, 'GET', '/v1/skills'),
        await api(e.url, 'GET', '/v1/skills/kept'),
        await put(e.url, 'lost', skill('lost')),
        await api(e.url, 'DELETE', '/v1/skills/kept'),
        await api(e.url, 'PUT', '/v1/agents/x/skills', { enabled: ['kept'] }),
        await api(e.url, 'GET', '/v1/agents/x/skills'),
      ]) {
        expect(r.status).toBe(503);
        expect(r.body.error.code).toBe('database_unavailable');
      }
      expect(existsSync(path.join(dataDir, 'skills', 'lost'))).toBe(false);
      await proxy.start();
      expect(await names(e.url)).toEqual(expect.arrayContaining(['kept']));
      expect(await names(e.url)).not.toContain('lost');
      expect(readdirSync(path.join(dataDir, 'skills')).sort()).toEqual(expect.arrayContaining(['kept']));
      expect(existsSync(path.join(dataDir, 'skills', 'lost'))).toBe(false);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
