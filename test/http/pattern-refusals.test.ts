/**
 * Refusals of an identifier that fails its pattern show the value sent — quoted, with control and
 * bidi characters escaped as `\uXXXX`, at most 80 characters of it — say what is allowed (in words
 * and as the pattern) and what in the value breaks the rule: a brain page slug (path), a skill name
 * (path, a turn's `skills`, SKILL.md's frontmatter). A `metadata` over its limits says how big it
 * is and what the limit is. All over REST against the real server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { validateResponse } from '../e2e/support/spec.js';
import { tarGz } from '../support/archives.js';

const SLUG_RULE = 'must be 1 to 128 characters — letters, digits, ".", "_" and "-", starting with a letter or digit (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$) —';
const SKILL_RULE = 'must be 1 to 64 characters — lowercase letters a–z, digits, "_" and "-", starting with a letter (^[a-z][a-z0-9_-]{0,63}$) —';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc.close());

/** The 400 `invalid_request` of one issue at `path`: message `<path> <detail>`, details `[{path, code, message: detail}]`. */
const refusal = (path: string, detail: string, code = 'invalid_format') => ({ code: 'invalid_request', message: `${path} ${detail}`, details: [{ path, code, message: detail }] });

describe('a brain page slug that fails its pattern', () => {
  it('is refused showing the slug, escaped, what is allowed and what is wrong with it', async () => {
    const cases: [string, string][] = [
      ['Deploy%20guide', `${SLUG_RULE} got "Deploy guide": " " is not allowed`],
      ['%E2%80%AEexe.txt', `${SLUG_RULE} got "\\u202Eexe.txt": U+202E is not allowed`],
      ['-notes', `${SLUG_RULE} got "-notes": it may not start with "-"`],
      ['a%22b%5C', `${SLUG_RULE} got "a\\"b\\\\": "\\"" is not allowed`],
      // A visible character beyond ASCII is quoted with its code point; a combining mark or a
      // joiner, which would show as nothing or merge with the quote, by its code point alone.
      ['caf%C3%A9', `${SLUG_RULE} got "café": "é" (U+00E9) is not allowed`],
      ['cafe%CC%81', `${SLUG_RULE} got "cafe\u0301": U+0301 is not allowed`],
      ['a%E2%80%8Db', `${SLUG_RULE} got "a\u200Db": U+200D is not allowed`],
    ];
    for (const [slug, detail] of cases) {
      for (const method of ['PUT', 'GET', 'DELETE'] as const) {
        const r = await api(svc.url, method, `/v1/agents/a1/brain/pages/${slug}`, method === 'PUT' ? { title: 'Deploy guide', markdown: 'x' } : undefined);
        expect(r.status, `${method} ${slug}`).toBe(400);
        expect(r.body.error, `${method} ${slug}`).toEqual(refusal('slug', detail));
      }
      expect(validateResponse('/v1/agents/{agent_id}/brain/pages/{slug}', 'put', 400, (await api(svc.url, 'PUT', `/v1/agents/a1/brain/pages/${slug}`, { title: 't', markdown: 'x' })).body)).toEqual([]);
    }
    expect((await api(svc.url, 'GET', '/v1/agents/a1/brain/pages')).body.data).toEqual([]);
  });
});

describe('a skill name that fails its pattern', () => {
  it('in the path is refused showing the name and what is allowed', async () => {
    const r = await api(svc.url, 'GET', '/v1/skills/PDF-tools');
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual(refusal('name', `${SKILL_RULE} got "PDF-tools": "P" is not allowed: use lower case, "pdf-tools"`));
    expect(validateResponse('/v1/skills/{name}', 'get', 400, r.body)).toEqual([]);
    // Lower case alone would not make it a name: no suggestion.
    const spaced = await api(svc.url, 'GET', '/v1/skills/PDF%20tools');
    expect(spaced.body.error).toEqual(refusal('name', `${SKILL_RULE} got "PDF tools": "P" is not allowed: use lower case`));
  });

  it('in a turn\'s skills is refused showing it, at most 80 characters of a long one', async () => {
    const long = `x${'y'.repeat(299)}`;
    const r = await api(svc.url, 'POST', '/v1/turns', { input: 'hi', skills: ['pdf', '_x', long] });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details).toEqual([
      { path: 'skills[1]', code: 'invalid_format', message: `${SKILL_RULE} got "_x": it may not start with "_"` },
      { path: 'skills[2]', code: 'invalid_format', message: `${SKILL_RULE} got "${long.slice(0, 80)}"… (300 characters): it has 300 characters` },
    ]);
    expect(r.body.error.message).toContain(`skills[1] ${SKILL_RULE} got "_x"`);
    expect(r.body.error.message.length).toBeLessThan(1000);
  });

  it('in SKILL.md\'s frontmatter is refused at install showing it', async () => {
    const body = tarGz([{ name: 'SKILL.md', data: '---\nname: "pdf\\ntools"\ndescription: x\n---\n' }]);
    const res = await fetch(`${svc.url}/v1/skills/pdf`, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body: new Uint8Array(body) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toEqual({
      code: 'invalid_skill',
      message: `SKILL.md frontmatter "name" ${SKILL_RULE} got "pdf\\u000Atools": U+000A is not allowed`,
      details: { file: 'SKILL.md', field: 'name' },
    });
  });
});

describe('metadata over its limits', () => {
  it('says how many bytes it serializes to and the limit', async () => {
    const metadata = { note: 'x'.repeat(5000) };
    const bytes = Buffer.byteLength(JSON.stringify(metadata));
    const r = await api(svc.url, 'POST', '/v1/turns', { input: 'hi', metadata });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual(refusal('metadata', `must serialize to at most 4096 bytes of JSON (UTF-8), got ${bytes}: keep large data elsewhere and put a reference to it (an id or a URL) in metadata`, 'custom'));
    expect(validateResponse('/v1/turns', 'post', 400, r.body)).toEqual([]);
  });

  it('says how many keys it has and the limit', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const r = await api(svc.url, 'POST', '/v1/turns', { input: 'hi', metadata });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual(refusal('metadata', 'may have at most 32 keys, got 40: merge related values under one key, or keep them elsewhere and put a reference to them (an id or a URL) in metadata', 'custom'));
  });
});
