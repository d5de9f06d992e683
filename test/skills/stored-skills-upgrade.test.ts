/**
 * Skills accepted before the character rules were added (a SKILL.md `description` or an archive
 * entry name with a control, separator, invisible or bidi character) do not vanish after an
 * upgrade: a built-in, an installed folder read at start and an installed archive unpacked from the
 * shared catalog (Postgres) still load and are listed — the description shown with those
 * characters as \uXXXX and a warning logged once — while a PUT of the same is refused. The
 * path-safety rules still apply to a stored archive. Everything is written directly, as an older
 * version stored it, before the real service starts.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PgSkillCatalog } from '../../src/store/postgres/pg-skill-catalog.js';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { skillMd, tarGz } from '../support/archives.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';

const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/** Start the service with warnings collected; `env` added. */
async function start(dataDir: string, env: Record<string, string> = {}) {
  const lines: { msg?: string; skill?: string; level?: number }[] = [];
  const svc = await startTestService({ dataDir, env: { LOG_LEVEL: 'warn', ...env }, logDestination: { write: (l) => void lines.push(JSON.parse(l)) } });
  closers.push(() => svc.close({ keepData: true }));
  return { svc, warnings: (skill: string) => lines.filter((l) => l.skill === skill).map((l) => l.msg) };
}

const skills = async (svc: TestService) => (await api(svc.url, 'GET', '/v1/skills')).body.data as { name: string; description: string; source: string }[];

async function put(svc: TestService, name: string, body: Buffer) {
  const res = await fetch(`${svc.url}/v1/skills/${name}`, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body: new Uint8Array(body) });
  return { status: res.status, body: (await res.json()) as { error: { code: string; message: string; details: unknown } } };
}

function writeFolder(dir: string, files: Record<string, string>) {
  for (const [name, data] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), data);
  }
}

const WARNING = /^SKILL\.md frontmatter "description" must not contain U\+202E \(a bidirectional control\), found at character 10, which an install now refuses: the skill is kept, its description shown with such characters as \\uXXXX/;

describe('skills stored before the character rules (SQLite)', () => {
  it('a built-in and an installed folder with such a description and entry name still load and are listed, the description escaped, a warning logged once each; a PUT of the same is refused', async () => {
    const dataDir = tempDir('stored-skills-');
    const builtins = tempDir('stored-builtins-');
    writeFolder(path.join(builtins, 'old-builtin'), { 'SKILL.md': skillMd('old-builtin', 'Zero\u200Bwidth and\u202Ereversed') });
    const legacyMd = skillMd('legacy', '|\n  Reads PDF\u202Efdp.exe\n  second\tline');
    writeFolder(path.join(dataDir, 'skills', 'legacy'), { 'SKILL.md': legacyMd, 'scripts/run\u202Egnp.sh': 'echo hi\n' });

    const { svc, warnings } = await start(dataDir, { SKILLS_DIR: builtins });
    const listed = await skills(svc);
    expect(listed.find((s) => s.name === 'old-builtin')).toMatchObject({ source: 'builtin', description: 'Zero\\u200Bwidth and\\u202Ereversed' });
    expect(listed.find((s) => s.name === 'legacy')).toMatchObject({ source: 'installed', description: 'Reads PDF\\u202Efdp.exe\nsecond\tline' });
    expect(warnings('legacy')).toHaveLength(1);
    expect(warnings('legacy')[0]).toMatch(WARNING);
    expect(warnings('old-builtin')).toEqual([expect.stringContaining('U+200B (an invisible character), found at character 5, which an install now refuses')]);
    await skills(svc); // read again: no second warning
    expect(warnings('legacy')).toHaveLength(1);

    const refused = await put(svc, 'legacy-again', tarGz([{ name: 'SKILL.md', data: legacyMd.replace('name: legacy', 'name: legacy-again') }]));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_skill', details: { file: 'SKILL.md', field: 'description' } });
    expect(refused.body.error.message).toContain('must not contain U+202E (a bidirectional control), found at character 10: a description is plain text (line breaks and tabs allowed) without other control characters, line or paragraph separators, invisible characters or bidirectional controls; remove it');
    const entry = await put(svc, 'legacy-entry', tarGz([{ name: 'SKILL.md', data: skillMd('legacy-entry', 'plain') }, { name: 'scripts/run\u202Egnp.sh', data: 'x' }]));
    expect(entry.status).toBe(400);
    expect(entry.body.error).toMatchObject({ code: 'invalid_skill_archive', details: { entry: 'scripts/run\\u202Egnp.sh' } });
  });
});

describePostgres('skills stored before the character rules (Postgres catalog)', () => {
  it('an archive stored with such a description and entry name is unpacked and listed; a stored archive breaking a path rule is still skipped; a PUT of the same is refused', async () => {
    const { db, url } = await migratedSchema();
    closers.push(() => db.close());
    const catalog = new PgSkillCatalog(db);
    const archive = tarGz([
      { name: 'SKILL.md', data: skillMd('legacy-archive', 'Reads PDF\u202Efdp.exe') },
      { name: 'scripts/run\u202Egnp.sh', data: 'echo hi\n' },
    ]);
    await catalog.put('legacy-archive', archive, 'application/gzip');
    await catalog.put('escapes', tarGz([{ name: 'SKILL.md', data: skillMd('escapes', 'plain') }, { name: '../outside.txt', data: 'x' }]), 'application/gzip');

    const dataDir = tempDir('stored-pg-skills-');
    const { svc, warnings } = await start(dataDir, { DATABASE_URL: url, STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters' });
    const listed = await skills(svc);
    expect(listed.map((s) => s.name)).toEqual(['legacy-archive']);
    expect(listed[0]).toMatchObject({ source: 'installed', description: 'Reads PDF\\u202Efdp.exe' });
    expect(existsSync(path.join(dataDir, 'skills', 'legacy-archive', 'scripts', 'run\u202Egnp.sh'))).toBe(true);
    expect(warnings('legacy-archive')).toHaveLength(1);
    expect(warnings('legacy-archive')[0]).toMatch(WARNING);
    expect(warnings('escapes')).toEqual(['skipping an installed skill whose stored archive this build refuses']);
    expect(existsSync(path.join(dataDir, 'skills', 'outside.txt'))).toBe(false);

    const refused = await put(svc, 'legacy-archive', archive);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_skill_archive', details: { entry: 'scripts/run\\u202Egnp.sh' } });
    expect((await skills(svc))[0]).toMatchObject({ name: 'legacy-archive', description: 'Reads PDF\\u202Efdp.exe' }); // kept
  });
});
