/**
 * Installing skills over REST on the real server: `.tar.gz` and `.zip` bodies are unpacked into
 * DATA_DIR/skills/<name>, listed, replaced, deleted, enabled per agent; hostile archives (zip-slip,
 * symbolic links, absolute paths, device files, names with control characters or bidi controls,
 * 100k entries, a gzip bomb) are refused with 400 naming the entry, and leave nothing on disk.
 * A SKILL.md description with a bidi control, a separator or no visible character is 400
 * `invalid_skill` naming the character; line breaks and tabs are text in it.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askWithHead } from '../e2e/support/request-head.js';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { spec, validateResponse } from '../e2e/support/spec.js';
import { manyEntryZip, skillMd, tarGz, zipArchive } from '../support/archives.js';
import { escapeUnsafeChars, hasUnsafeChars, quoteForDisplay } from '../../src/unsafe-chars.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc.close());

async function put(name: string, body: Buffer, type = 'application/gzip') {
  const res = await fetch(`${svc.url}/v1/skills/${name}`, { method: 'PUT', headers: { 'content-type': type }, body: new Uint8Array(body) });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

const skillsDir = () => path.join(svc.dataDir, 'skills');
const leftovers = () => readdirSync(skillsDir()).filter((n) => n.startsWith('.'));

describe('installing skills', () => {
  it('installs a .tar.gz, lists it, replaces it with a .zip and deletes it', async () => {
    const tgz = tarGz([
      { name: 'SKILL.md', data: skillMd('pdf-tools', 'Work with PDF files') },
      { name: 'scripts/', type: 'dir' },
      { name: 'scripts/count.sh', data: '#!/bin/sh\necho 3\n', mode: 0o755 },
      { name: 'references/api.md', data: '# API\n' },
    ]);
    const created = await put('pdf-tools', tgz);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/v1/skills/pdf-tools');
    expect(created.body).toMatchObject({ name: 'pdf-tools', description: 'Work with PDF files', runtime: 'any', source: 'installed', mcp_servers: [] });
    expect(created.body.files).toEqual(['SKILL.md', 'references/api.md', 'scripts/count.sh']);
    const dir = path.join(skillsDir(), 'pdf-tools');
    expect(statSync(path.join(dir, 'scripts/count.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(dir, 'references/api.md')).mode & 0o777).toBe(0o644);

    const list = await api(svc.url, 'GET', '/v1/skills');
    expect(list.body.data.map((s: any) => s.name)).toContain('pdf-tools');
    // Responses match openapi.yaml.
    expect(validateResponse('/v1/skills/{name}', 'put', 201, created.body)).toEqual([]);
    expect(validateResponse('/v1/skills', 'get', 200, list.body)).toEqual([]);

    const zip = await zipArchive([{ name: 'SKILL.md', data: skillMd('pdf-tools', 'Work with PDF files, v2', 'body', 'runtime: main\n') }]);
    const replaced = await put('pdf-tools', zip, 'application/zip');
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ description: 'Work with PDF files, v2', runtime: 'main', files: ['SKILL.md'] });
    expect(existsSync(path.join(dir, 'scripts'))).toBe(false);
    expect((await api(svc.url, 'GET', '/v1/skills/pdf-tools')).body.description).toBe('Work with PDF files, v2');

    const deleted = await api(svc.url, 'DELETE', '/v1/skills/pdf-tools');
    expect(deleted.body).toEqual({ name: 'pdf-tools', deleted: true });
    expect(validateResponse('/v1/skills/{name}', 'delete', 200, deleted.body)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect((await api(svc.url, 'GET', '/v1/skills/pdf-tools')).status).toBe(404);
    expect(leftovers()).toEqual([]);
  });

  it('enables skills per agent and refuses unknown names', async () => {
    await put('notes', tarGz([{ name: 'SKILL.md', data: skillMd('notes', 'Take notes') }]));
    const set = await api(svc.url, 'PUT', '/v1/agents/a1/skills', { enabled: ['notes'] });
    expect(set.body).toEqual({ agent_id: 'a1', enabled: ['notes'] });
    expect(validateResponse('/v1/agents/{agent_id}/skills', 'put', 200, set.body)).toEqual([]);
    expect((await api(svc.url, 'GET', '/v1/agents/a1/skills')).body).toEqual({ agent_id: 'a1', enabled: ['notes'] });
    expect((await api(svc.url, 'GET', '/v1/agents/other/skills')).body).toEqual({ agent_id: 'other', enabled: [] });
    const bad = await api(svc.url, 'PUT', '/v1/agents/a1/skills', { enabled: ['notes', 'nope'] });
    expect(bad.status).toBe(400);
    expect(validateResponse('/v1/agents/{agent_id}/skills', 'put', 400, bad.body)).toEqual([]);
    expect(bad.body.error).toMatchObject({ code: 'unknown_skill', details: { unknown: ['nope'] } });
    expect(bad.body.error.message).toContain('nope');
  });

  it('takes back what GET answered as it is (agent_id and all); another agent\'s id in the body is 400 saying which', async () => {
    await put('notes', tarGz([{ name: 'SKILL.md', data: skillMd('notes', 'Take notes') }]));
    expect((await api(svc.url, 'PUT', '/v1/agents/rt/skills', { enabled: ['notes'] })).status).toBe(200);
    const read = (await api(svc.url, 'GET', '/v1/agents/rt/skills')).body;
    const back = await api(svc.url, 'PUT', '/v1/agents/rt/skills', read);
    expect(back.status).toBe(200);
    expect(back.body).toEqual({ agent_id: 'rt', enabled: ['notes'] });
    const other = await api(svc.url, 'PUT', '/v1/agents/rt/skills', { ...read, agent_id: 'someone' });
    expect(other.status).toBe(400);
    expect(validateResponse('/v1/agents/{agent_id}/skills', 'put', 400, other.body)).toEqual([]);
    expect(other.body.error).toEqual({
      code: 'invalid_request',
      message: 'agent_id is "someone", but the path names agent "rt": send the path\'s agent_id, or leave it out',
      details: [{ path: 'agent_id', code: 'agent_mismatch', message: 'is "someone", but the path names agent "rt": send the path\'s agent_id, or leave it out' }],
    });
  });

  it('a deleted skill leaves every agent\'s enabled list: the list read back can be PUT again, and a reinstall enables it for nobody', async () => {
    for (const n of ['vault', 'vault2']) expect((await put(n, tarGz([{ name: 'SKILL.md', data: skillMd(n, `Keep ${n}`) }]))).status).toBe(201);
    expect((await api(svc.url, 'PUT', '/v1/agents/keeper/skills', { enabled: ['vault2', 'vault'] })).status).toBe(200);
    expect((await api(svc.url, 'PUT', '/v1/agents/keeper2/skills', { enabled: ['vault2'] })).status).toBe(200);

    expect((await api(svc.url, 'DELETE', '/v1/skills/vault2')).body).toEqual({ name: 'vault2', deleted: true });
    const after = await api(svc.url, 'GET', '/v1/agents/keeper/skills');
    expect(after.body).toEqual({ agent_id: 'keeper', enabled: ['vault'] });
    expect((await api(svc.url, 'GET', '/v1/agents/keeper2/skills')).body).toEqual({ agent_id: 'keeper2', enabled: [] });
    expect((await api(svc.url, 'PUT', '/v1/agents/keeper/skills', { enabled: after.body.enabled })).status).toBe(200);

    // Installed again: enabled for nobody until a PUT says so.
    expect((await put('vault2', tarGz([{ name: 'SKILL.md', data: skillMd('vault2', 'Keep vault2 again') }]))).status).toBe(201);
    expect((await api(svc.url, 'GET', '/v1/agents/keeper/skills')).body.enabled).toEqual(['vault']);
    expect((await api(svc.url, 'GET', '/v1/agents/keeper2/skills')).body.enabled).toEqual([]);
    // A delete refused (not installed) changes no list.
    expect((await api(svc.url, 'DELETE', '/v1/skills/nothing-here')).status).toBe(404);
    expect((await api(svc.url, 'GET', '/v1/agents/keeper/skills')).body.enabled).toEqual(['vault']);
  });

  it('refuses a SKILL.md whose name differs, one not at the root, and a wrong content type', async () => {
    const other = await put('alpha', tarGz([{ name: 'SKILL.md', data: skillMd('beta', 'x') }]));
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('invalid_skill');
    expect(other.body.error.message).toBe(
      'SKILL.md frontmatter name "beta" does not match the skill name "alpha" in the URL: change SKILL.md\'s name to "alpha", or send the archive to PUT /v1/skills/beta instead',
    );
    const nested = await put('alpha', tarGz([{ name: 'alpha/SKILL.md', data: skillMd('alpha', 'x') }]));
    expect(nested.status).toBe(400);
    expect(nested.body.error.message).toContain('SKILL.md must be at the archive root');
    const plain = await put('alpha', Buffer.from('hello'), 'text/plain');
    expect(plain.status).toBe(415);
    expect(plain.body.error.message).toContain('Content-Type: application/gzip');
    expect(plain.body.error.details).toEqual({ content_type: 'text/plain', accepted: ['application/gzip', 'application/x-gzip', 'application/zip'] });
    const json = await put('alpha', Buffer.from('{}'), 'application/json');
    expect(json.status).toBe(415);
    // A gzip archive sent as JSON is refused for its type too, before the JSON parser reads it.
    const mislabelled = await put('alpha', tarGz([{ name: 'SKILL.md', data: skillMd('alpha', 'x') }]), 'application/json');
    expect(mislabelled.status).toBe(415);
    expect(mislabelled.body.error.details).toEqual({ content_type: 'application/json', accepted: ['application/gzip', 'application/x-gzip', 'application/zip'] });
    // application/x-gzip, what `file --mime-type` says of a .tar.gz, is a gzip too.
    const xgzip = await put('alpha', tarGz([{ name: 'SKILL.md', data: skillMd('alpha', 'x') }]), 'application/x-gzip');
    expect(xgzip.status).toBe(201);
    expect((await api(svc.url, 'GET', '/v1/skills/alpha')).body).toMatchObject({ name: 'alpha', files: ['SKILL.md'] });
    expect((await api(svc.url, 'DELETE', '/v1/skills/alpha')).status).toBe(200);
    const broken = await put('alpha', Buffer.from('not gzip at all'));
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_skill_archive');
  });

  it('a gzip of SKILL.md alone is refused saying what a skill archive is and the command that makes one, and that command makes one', async () => {
    const lone = await put('alpha', gzipSync(skillMd('alpha', 'x')));
    expect(lone.status).toBe(400);
    expect(lone.body.error).toEqual({
      code: 'invalid_skill_archive',
      message:
        "not a valid tar archive (TAR_BAD_ARCHIVE: Unrecognized archive format): send a gzip-compressed tar of the skill's folder with SKILL.md at its top, e.g. made with tar -czf skill.tar.gz -C my-skill . (a gzip of a single file such as SKILL.md is not one)",
      details: { entry: null, format: 'tar' },
    });
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'skill-advice-'));
    try {
      mkdirSync(path.join(scratch, 'my-skill', 'scripts'), { recursive: true });
      writeFileSync(path.join(scratch, 'my-skill', 'SKILL.md'), skillMd('alpha', 'made as the refusal says'));
      writeFileSync(path.join(scratch, 'my-skill', 'scripts', 'run.sh'), 'echo hi\n');
      execFileSync('tar', ['-czf', 'skill.tar.gz', '-C', 'my-skill', '.'], { cwd: scratch });
      const made = await put('alpha', readFileSync(path.join(scratch, 'skill.tar.gz')));
      expect(made.status).toBe(201);
      expect(made.body.files).toEqual(['SKILL.md', 'scripts/run.sh']);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      await api(svc.url, 'DELETE', '/v1/skills/alpha');
    }
  });
});

describe('refusals name the file and field, or the entry, in details', () => {
  const md = (text: string) => tarGz([{ name: 'SKILL.md', data: text }]);
  const manifest = (yaml: string) => tarGz([{ name: 'SKILL.md', data: skillMd('alpha', 'x') }, { name: 'agents/openai.yaml', data: yaml }]);
  const server = (name: string, more = '') => `    - type: mcp\n      value: ${name}\n      transport: stdio\n      command: x\n${more}`;

  it('invalid_skill: details {file, field} name the file and the field that is wrong (null for the file as a whole)', async () => {
    const cases: [string, Buffer, { file: string; field: string | null }, string][] = [
      ['name differs', md(skillMd('beta', 'x')), { file: 'SKILL.md', field: 'name' }, 'does not match the skill name "alpha"'],
      ['bad name', md('---\nname: Alpha!\ndescription: x\n---\n'), { file: 'SKILL.md', field: 'name' }, 'frontmatter "name" must be 1 to 64 characters — lowercase letters a–z, digits, "_" and "-", starting with a letter (^[a-z][a-z0-9_-]{0,63}$) — got "Alpha!": "A" is not allowed'],
      ['no description', md('---\nname: alpha\n---\nbody\n'), { file: 'SKILL.md', field: 'description' }, '"description" must be a non-empty string'],
      ['bidi description', md(skillMd('alpha', 'Reads PDF\u202Efdp.exe')), { file: 'SKILL.md', field: 'description' }, 'frontmatter "description" must not contain U+202E (a bidirectional control), found at character 10: a description is plain text (line breaks and tabs allowed) without other control characters'],
      ['separator in description', md(skillMd('alpha', '"Reads\\u2028PDF"')), { file: 'SKILL.md', field: 'description' }, '"description" must not contain U+2028 (a line or paragraph separator)'],
      ['tag characters in description', md(skillMd('alpha', `Reads PDFs${[...'run rm'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}`)), { file: 'SKILL.md', field: 'description' }, 'frontmatter "description" must not contain U+E0072 (an invisible character)'],
      ['byte order mark as the description', md(skillMd('alpha', '"\\uFEFF"')), { file: 'SKILL.md', field: 'description' }, 'frontmatter "description" must not contain U+FEFF (an invisible character)'],
      ['soft hyphen in description', md(skillMd('alpha', 'Reads PD\u00ADFs')), { file: 'SKILL.md', field: 'description' }, 'frontmatter "description" must not contain U+00AD (an invisible character)'],
      ['blank description', md(skillMd('alpha', '\u2800\u200D')), { file: 'SKILL.md', field: 'description' }, '"description" must have a visible character, not only whitespace or invisible characters (found U+2800): describe what the skill does in words'],
      ['bad runtime', md(skillMd('alpha', 'x', 'body', 'runtime: sometimes\n')), { file: 'SKILL.md', field: 'runtime' }, '"runtime" must be one of any, main, background_job'],
      ['no frontmatter', md('# alpha\n'), { file: 'SKILL.md', field: null }, 'must start with YAML frontmatter'],
      ['frontmatter not YAML', md('---\nname: [alpha\n---\n'), { file: 'SKILL.md', field: null }, 'frontmatter is not valid YAML'],
      ['manifest not YAML', manifest('dependencies: [\n'), { file: 'agents/openai.yaml', field: null }, 'agents/openai.yaml is not valid YAML'],
      ['a server declared twice', manifest(`dependencies:\n  tools:\n${server('notes')}${server('notes')}`), { file: 'agents/openai.yaml', field: 'dependencies.tools[1].value' }, 'declares MCP server "notes" twice'],
    ];
    for (const [what, body, details, message] of cases) {
      const r = await put('alpha', body);
      expect(r.status, what).toBe(400);
      expect(r.body.error, what).toEqual({ code: 'invalid_skill', message: expect.stringContaining(message), details });
      expect(validateResponse('/v1/skills/{name}', 'put', 400, r.body), what).toEqual([]);
    }
  });

  it('a description over several lines, with tabs, ZWNJ, ZWJ emoji and right-to-left text, is installed as written', async () => {
    const r = await put('alpha', md('---\nname: alpha\ndescription: |\n  Reads PDFs\t(fast)\n  می\u200Cخواهم 👩\u200D💻 מדריך\n---\nbody\n'));
    expect(r.status).toBe(201);
    expect(r.body.description).toBe('Reads PDFs\t(fast)\nمی\u200Cخواهم 👩\u200D💻 מדריך');
    expect((await api(svc.url, 'DELETE', '/v1/skills/alpha')).status).toBe(200);
  });

  it('invalid_skill: a manifest against its schema lists every problem in details.issues, the first as field', async () => {
    const r = await put('alpha', manifest(`dependencies:\n  tools:\n${server('notes', '      env: {A: b}\n')}${server('bad name')}`));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_skill');
    expect(r.body.error.details).toEqual({
      file: 'agents/openai.yaml',
      field: 'dependencies.tools[0].env',
      issues: [
        { path: 'dependencies.tools[0].env', code: 'unrecognized_keys', message: expect.stringContaining('"env"') },
        { path: 'dependencies.tools[1].value', code: 'invalid_format', message: expect.stringContaining('value (the MCP server name) must match') },
      ],
    });
  });

  it('invalid_skill_archive: details {entry} name the entry to blame, or null for the archive as a whole, with what it broke', async () => {
    const cases: [string, Buffer, string, Record<string, unknown>, string][] = [
      ['not gzip', Buffer.from('not gzip at all'), 'application/gzip', { entry: null, format: 'gzip' }, "not a valid gzip stream (incorrect header check): send a gzip-compressed tar of the skill's folder"],
      ['gzip but not tar', gzipSync(Buffer.from('plain text, no tar headers at all')), 'application/gzip', { entry: null, format: 'tar' }, 'not a valid tar archive'],
      ['not zip', Buffer.from('not a zip either'), 'application/zip', { entry: null, format: 'zip' }, "not a valid zip archive (End of central directory record signature not found. Either not a zip file, or file is truncated): send a zip of the skill's folder with SKILL.md at its top, e.g. made with (cd my-skill && zip -r ../skill.zip .)"],
      ['no SKILL.md', tarGz([{ name: 'README.md', data: '# hi\n' }]), 'application/gzip', { entry: null, missing: 'SKILL.md' }, 'SKILL.md must be at the archive root'],
      ['SKILL.md in a folder', tarGz([{ name: 'alpha/SKILL.md', data: skillMd('alpha', 'x') }]), 'application/gzip', { entry: 'alpha/SKILL.md', missing: 'SKILL.md' }, '(found alpha/SKILL.md: archive the folder\'s contents, not the folder)'],
      ['an entry twice', tarGz([{ name: 'SKILL.md', data: skillMd('alpha', 'x') }, { name: 'a.txt', data: '1' }, { name: 'a.txt', data: '2' }]), 'application/gzip', { entry: 'a.txt' }, 'appears twice'],
      ['too many entries', manyEntryZip(['SKILL.md', ...Array.from({ length: 1000 }, (_, i) => `f${i}`)]), 'application/zip', { entry: null, entries: 1001, max_entries: 1000 }, 'archive has 1001 entries'],
    ];
    for (const [what, body, type, details, message] of cases) {
      const r = await put('alpha', body, type);
      expect(r.status, what).toBe(400);
      expect(r.body.error, what).toEqual({ code: 'invalid_skill_archive', message: expect.stringContaining(message), details });
      expect(validateResponse('/v1/skills/{name}', 'put', 400, r.body), what).toEqual([]);
    }
  });
});

describe('hostile archives are refused with 400 naming the entry', () => {
  const md = { name: 'SKILL.md', data: skillMd('evil', 'x') };
  const cases: [string, () => Promise<Buffer> | Buffer, string, string, string?][] = [
    ['zip-slip in a zip', () => zipArchive([{ name: 'SKILL.md', data: skillMd('evil', 'x') }, { name: '../../escaped.txt', data: 'pwned' }]), 'application/zip', '../../escaped.txt', '".." segments'],
    ['zip-slip in a tar.gz', () => tarGz([md, { name: 'scripts/../../escaped.txt', data: 'pwned' }]), 'application/gzip', 'scripts/../../escaped.txt', '".." segments'],
    ['a symbolic link in a tar.gz', () => tarGz([md, { name: 'link', type: 'symlink', linkname: '/etc/passwd' }]), 'application/gzip', 'link', 'symbolic links'],
    ['a symbolic link in a zip', () => zipArchive([{ name: 'SKILL.md', data: skillMd('evil', 'x') }, { name: 'link', data: '/etc/passwd', mode: 0o120777 }]), 'application/zip', 'link', 'symbolic links'],
    ['a hard link in a tar.gz', () => tarGz([md, { name: 'hard', type: 'link', linkname: 'SKILL.md' }]), 'application/gzip', 'hard', 'hard links'],
    ['an absolute path in a tar.gz', () => tarGz([md, { name: '/tmp/abs.txt', data: 'x' }]), 'application/gzip', '/tmp/abs.txt', 'absolute paths'],
    ['an absolute path in a zip', () => zipArchive([{ name: 'SKILL.md', data: skillMd('evil', 'x') }, { name: '/tmp/abs.txt', data: 'x' }]), 'application/zip', '/tmp/abs.txt', 'absolute'],
    ['a device file in a tar.gz', () => tarGz([md, { name: 'null', type: 'char' }]), 'application/gzip', 'null', 'device files'],
    ['a FIFO in a tar.gz', () => tarGz([md, { name: 'pipe', type: 'fifo' }]), 'application/gzip', 'pipe', 'FIFOs'],
    ['control characters in a tar.gz name', () => tarGz([md, { name: 'a\x01b\nc.txt', data: 'x' }]), 'application/gzip', 'a\x01b\nc.txt', 'path contains U+0001 (a control character), found at character 2: file and folder names must not contain control characters, line or paragraph separators, invisible characters or bidirectional controls; rename it'],
    ['a line break in a zip folder name', () => zipArchive([{ name: 'SKILL.md', data: skillMd('evil', 'x') }, { name: 'refs\n/notes.md', data: 'x' }]), 'application/zip', 'refs\n/notes.md', 'U+000A (a control character)'],
    ['DEL in a zip name', () => zipArchive([{ name: 'SKILL.md', data: skillMd('evil', 'x') }, { name: 'a\x7f.txt', data: 'x' }]), 'application/zip', 'a\x7f.txt', 'U+007F (a control character)'],
    ['a C1 control in a tar.gz name', () => tarGz([md, { name: 'a\u0085.txt', data: 'x' }]), 'application/gzip', 'a\u0085.txt', 'U+0085 (a control character)'],
    ['a right-to-left override in a tar.gz name', () => tarGz([md, { name: 'scripts/run\u202Egnp.sh', data: 'x' }]), 'application/gzip', 'scripts/run\u202Egnp.sh', 'U+202E (a bidirectional control)'],
    ['a bidi isolate in a zip name', () => zipArchive([{ name: 'SKILL.md', data: skillMd('evil', 'x') }, { name: '\u2067notes.md', data: 'x' }]), 'application/zip', '\u2067notes.md', 'U+2067 (a bidirectional control)'],
    ['a line separator in a tar.gz name', () => tarGz([md, { name: 'notes\u2028.md', data: 'x' }]), 'application/gzip', 'notes\u2028.md', 'path contains U+2028 (a line or paragraph separator), found at character 6: file and folder names must not contain'],
    ['a zero-width space in a zip folder name', () => zipArchive([{ name: 'SKILL.md', data: skillMd('evil', 'x') }, { name: 'scr\u200Bipts/run.sh', data: 'x' }]), 'application/zip', 'scr\u200Bipts/run.sh', 'U+200B (an invisible character)'],
    ['a BOM in a tar.gz name', () => tarGz([md, { name: '\uFEFFREADME.md', data: 'x' }]), 'application/gzip', '\uFEFFREADME.md', 'U+FEFF (an invisible character)'],
  ];
  for (const [what, build, type, entry, why] of cases) {
    it(`${what}`, async () => {
      const r = await put('evil', await build(), type);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_skill_archive');
      // The entry is echoed with unsafe characters as \uXXXX escapes, never as themselves.
      expect(r.body.error.details).toEqual({ entry: escapeUnsafeChars(entry) });
      expect(r.body.error.message).toContain(quoteForDisplay(entry));
      expect(hasUnsafeChars(r.body.error.message)).toBe(false);
      expect(hasUnsafeChars(r.body.error.details.entry)).toBe(false);
      if (why) expect(r.body.error.message).toContain(why);
      expect(existsSync(path.join(skillsDir(), 'evil'))).toBe(false);
      expect(existsSync(path.join(svc.dataDir, 'escaped.txt'))).toBe(false);
      expect(existsSync(path.join(path.dirname(svc.dataDir), 'escaped.txt'))).toBe(false);
      expect(leftovers()).toEqual([]);
    });
  }

  it('100,000 files in a tar.gz', async () => {
    const items = [md, ...Array.from({ length: 100_000 }, (_, i) => ({ name: `f/${i.toString(36)}` }))];
    const r = await put('evil', tarGz(items));
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/more than 1000 entries/);
    expect(r.body.error.details).toEqual({ entry: expect.any(String), max_entries: 1000 });
    expect(existsSync(path.join(skillsDir(), 'evil'))).toBe(false);
  }, 60_000);

  it('100,000 files in a zip (refused from the central directory, before inflating)', async () => {
    const body = manyEntryZip(['SKILL.md', ...Array.from({ length: 100_000 }, (_, i) => i.toString(36))]);
    expect(body.length).toBeLessThan(10 * 1024 * 1024);
    const r = await put('evil', body, 'application/zip');
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('archive has 100001 entries; at most 1000 are allowed');
    expect(r.body.error.details).toEqual({ entry: null, entries: 100001, max_entries: 1000 });
  }, 60_000);

  it('a gzip bomb (256 MiB of zeros in a 1 MiB body) stops at the size cap', async () => {
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024), { level: 1 });
    expect(bomb.length).toBeLessThan(10 * 1024 * 1024);
    const r = await put('evil', bomb);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe(
      'archive unpacks to more than 50 MiB (52428800 bytes), the most a skill may hold: ship smaller files, and leave large data (data sets, models, media) out of the skill — a command can fetch it when it needs it',
    );
    expect(r.body.error.details).toEqual({ entry: null, max_unpacked_bytes: 50 * 1024 * 1024 });
  }, 60_000);

  it('a zip whose files add up to more than 50 MiB names the entry that crossed the cap', async () => {
    const big = Buffer.alloc(30 * 1024 * 1024);
    const body = await zipArchive([{ name: 'SKILL.md', data: skillMd('big', 'Big') }, { name: 'data/a.bin', data: big, compress: true }, { name: 'data/b.bin', data: big, compress: true }]);
    const r = await put('big', body, 'application/zip');
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe(
      'archive unpacks to more than 50 MiB (52428800 bytes) (at entry "data/b.bin"), the most a skill may hold: ship smaller files, and leave large data (data sets, models, media) out of the skill — a command can fetch it when it needs it',
    );
    expect(r.body.error.details).toEqual({ entry: 'data/b.bin', max_unpacked_bytes: 52428800 });
    expect(existsSync(path.join(skillsDir(), 'big'))).toBe(false);
  }, 60_000);

  it('a file or folder name over 255 bytes is refused naming the entry, its length and the limit', async () => {
    for (const [entry, long] of [
      [`references/${'n'.repeat(256)}.md`, `${'n'.repeat(256)}.md`],
      [`${'é'.repeat(128)}/notes.md`, 'é'.repeat(128)],
    ]) {
      const body = await zipArchive([{ name: 'SKILL.md', data: skillMd('long-names', 'Long names') }, { name: entry, data: 'x' }]);
      const r = await put('long-names', body, 'application/zip');
      expect(r.status, entry).toBe(400);
      expect(r.body.error.code).toBe('invalid_skill_archive');
      expect(r.body.error.message).toBe(
        `archive entry ${quoteForDisplay(entry)}: the name ${quoteForDisplay(long.slice(0, 40))}… (${long.length} characters) is ${Buffer.byteLength(long)} bytes long in UTF-8; a file or folder name may be at most 255 bytes: shorten it`,
      );
      expect(r.body.error.details).toEqual({ entry });
      expect(validateResponse('/v1/skills/{name}', 'put', 400, r.body)).toEqual([]);
    }
    // 255 bytes is fine.
    const fits = await zipArchive([{ name: 'SKILL.md', data: skillMd('long-names', 'Long names') }, { name: `${'n'.repeat(252)}.md`, data: 'x' }]);
    expect((await put('long-names', fits, 'application/zip')).status).toBe(201);
  });

  it('a body over 10 MiB gets 413 naming the archive cap (10 MiB, not BODY_LIMIT_BYTES), as openapi.yaml documents', async () => {
    const r = await fetch(`${svc.url}/v1/skills/evil`, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body: new Uint8Array(10.6 * 1000 * 1000) });
    expect(r.status).toBe(413);
    const body = await r.json();
    expect(body).toEqual({
      error: {
        code: 'body_too_large',
        message:
          'the request body is larger than 10485760 bytes (the fixed 10 MiB cap on skill archives of PUT /v1/skills/{name}; BODY_LIMIT_BYTES does not apply to them); send a smaller archive, leaving out files the skill does not need',
        details: { limit_bytes: 10485760, source: 'skill_archive' },
      },
    });
    expect(validateResponse('/v1/skills/{name}', 'put', 413, body)).toEqual([]);
    expect(spec.paths['/v1/skills/{name}'].put.responses['413'].description).toContain('10485760');
  });

  it('installs an archive over BODY_LIMIT_BYTES and up to 10 MiB', async () => {
    const tgz = tarGz([{ name: 'SKILL.md', data: skillMd('big', 'A big skill') }, { name: 'blob.bin', data: randomBytes(10 * 1024 * 1024 - 64 * 1024) }]);
    expect(tgz.length).toBeGreaterThan(svc.services.config.BODY_LIMIT_BYTES);
    expect(tgz.length).toBeLessThanOrEqual(10 * 1024 * 1024);
    const r = await put('big', tgz);
    expect(r.status).toBe(201);
    expect(r.body.files).toEqual(['SKILL.md', 'blob.bin']);
  });

  it('answers Expect: 100-continue with the 413 before an archive over 10 MiB is sent, and 100 Continue for one within it', async () => {
    const ask = (head: string) => askWithHead(svc.url, head);
    const head = (length: number) => `PUT /v1/skills/evil HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/gzip\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;
    const over = await ask(head(11 * 1024 * 1024));
    expect(over).toMatch(/^HTTP\/1\.1 413 /);
    expect(over).not.toContain('100 Continue');
    expect(JSON.parse(over.split('\r\n\r\n')[1]).error).toMatchObject({ code: 'body_too_large', details: { limit_bytes: 10485760, source: 'skill_archive' } });
    expect(await ask(head(2 * 1024 * 1024))).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
  });

  it('keeps the installed skill when a replacement is refused', async () => {
    await put('keep', tarGz([{ name: 'SKILL.md', data: skillMd('keep', 'original') }]));
    const r = await put('keep', tarGz([{ name: 'SKILL.md', data: skillMd('keep', 'new') }, { name: 'x', type: 'symlink', linkname: '/' }]));
    expect(r.status).toBe(400);
    expect(readFileSync(path.join(skillsDir(), 'keep', 'SKILL.md'), 'utf8')).toContain('original');
    expect((await api(svc.url, 'GET', '/v1/skills/keep')).body.description).toBe('original');
  });
});
