/**
 * A brain page title is one line of plain text: a title with a control character (NUL, a line
 * break, a tab, DEL, C1), a line or paragraph separator (U+2028, U+2029), an invisible character
 * (among them the soft hyphen U+00AD, U+180E, the interlinear annotation characters U+FFF9–U+FFFB
 * and the tag characters U+E0000–U+E007F, which can hide text) or a bidirectional control (U+202E
 * shows it reversed in a list) is refused — over REST (real server on loopback) with the standard
 * 400 `invalid_request` and details `[{path: 'title', code, message}]`, and by the store itself
 * (both engines) — never stored; so is a title with no visible character (only a Hangul filler, a
 * blank Braille pattern, combining marks or format characters such as U+200D alone: the check turn
 * input uses), 400 `invalid_page`; text in a right-to-left script, emoji sequences with joiners
 * (ZWJ) and words with a non-joiner (ZWNJ) are titles like any.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BrainInputError } from '../../src/brain/brain-store.js';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { validateResponse } from '../e2e/support/spec.js';
import { describeEachEngine, openStores, type OpenStores } from '../support/store-engines.js';

const refusal = (found: string) => `must not contain ${found}: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the title as one line of plain text without them`;

describe('brain page titles over REST', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => svc.close());
  const page = (slug: string) => `/v1/agents/titles/brain/pages/${slug}`;

  it('refuses a title with a control character, a line separator, an invisible character or a bidi control with 400 invalid_request naming the character', async () => {
    const cases: [string, string][] = [
      ['Deploy\u202Eediug', 'U+202E (a bidirectional control), found at character 7'],
      ['Deploy\u2066guide\u2069', 'U+2066 (a bidirectional control), found at character 7'],
      ['Deploy\u200Fguide', 'U+200F (a bidirectional control), found at character 7'],
      ['Deploy\nguide', 'U+000A (a control character), found at character 7'],
      ['Deploy\tguide', 'U+0009 (a control character), found at character 7'],
      ['Deploy\u007Fguide', 'U+007F (a control character), found at character 7'],
      ['Deploy\u0085guide', 'U+0085 (a control character), found at character 7'],
      ['Deploy\u2028guide', 'U+2028 (a line or paragraph separator), found at character 7'],
      ['Deploy guide\u2029', 'U+2029 (a line or paragraph separator), found at character 13'],
      ['Deploy\u200Bguide', 'U+200B (an invisible character), found at character 7'],
      ['Deploy\u2060guide', 'U+2060 (an invisible character), found at character 7'],
      ['\uFEFFDeploy guide', 'U+FEFF (an invisible character), found at character 1'],
      ['\uFEFF', 'U+FEFF (an invisible character), found at character 1'],
      [' \uFEFF ', 'U+FEFF (an invisible character), found at character 2'],
      ['De\u00ADploy guide', 'U+00AD (an invisible character), found at character 3'],
      ['Deploy\u180Eguide', 'U+180E (an invisible character), found at character 7'],
      ['Deploy guide\uFFFB', 'U+FFFB (an invisible character), found at character 13'],
      ['Deploy guide\u{E0001}\u{E0072}\u{E007F}', 'U+E0001 (an invisible character), found at character 13'],
      ['Deploy\u180Cguide', 'U+180C (an invisible character), found at character 7'],
      ['Deploy\u{1343F}guide', 'U+1343F (an invisible character), found at character 7'],
      ['Deploy\u{1BCA3}guide', 'U+1BCA3 (an invisible character), found at character 7'],
      ['\uFE0FDeploy guide', 'U+FE0F (a variation selector not after a character it applies to), found at character 1'],
      ['Deploy \u{E01EF}guide', 'U+E01EF (a variation selector not after a character it applies to), found at character 8'],
      ['Dep\uFE0Floy guide', 'U+FE0F (a variation selector not after a character it applies to), found at character 4'],
      ['D\u{E0100}eploy guide', 'U+E0100 (a variation selector not after a character it applies to), found at character 2'],
    ];
    for (const [title, found] of cases) {
      const r = await api(svc.url, 'PUT', page('guide'), { title, markdown: 'x' });
      expect(r.status, JSON.stringify(title)).toBe(400);
      expect(r.body.error, JSON.stringify(title)).toEqual({
        code: 'invalid_request',
        message: `title ${refusal(found)}`,
        details: [{ path: 'title', code: 'custom', message: refusal(found) }],
      });
      expect(validateResponse('/v1/agents/{agent_id}/brain/pages/{slug}', 'put', 400, r.body)).toEqual([]);
    }
    // "\u0000\u202e": nothing but a NUL and a right-to-left override.
    const nul = await api(svc.url, 'PUT', page('guide'), { title: '\u0000\u202E', markdown: 'x' });
    expect(nul.status).toBe(400);
    expect(nul.body.error.code).toBe('invalid_request');
    expect(nul.body.error.details).toContainEqual({ path: 'title', code: 'custom', message: refusal('U+0000 (a control character), found at character 1') });
    expect((await api(svc.url, 'GET', page('guide'))).status).toBe(404);
    expect((await api(svc.url, 'GET', '/v1/agents/titles/brain/pages')).body.data).toEqual([]);
  });

  it('refuses a title with no visible character (blank letters, combining marks, format characters) with 400 invalid_page saying what to send', async () => {
    for (const title of ['\u2800', '\u0301\u0301', '\u200D', '\u200C\u200D', ' \u2800 ']) {
      const found = title.trim().codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      const message = `must have a visible character, not only whitespace or invisible characters (found U+${found}): send a short title for the page in words`;
      const r = await api(svc.url, 'PUT', page('blank'), { title, markdown: 'x' });
      expect(r.status, JSON.stringify(title)).toBe(400);
      expect(r.body.error, JSON.stringify(title)).toEqual({ code: 'invalid_page', message: `title ${message}`, details: [{ path: 'title', code: 'too_small', message }] });
      expect(validateResponse('/v1/agents/{agent_id}/brain/pages/{slug}', 'put', 400, r.body)).toEqual([]);
    }
    expect((await api(svc.url, 'GET', page('blank'))).status).toBe(404);
  });

  it('refuses a title of only private-use characters or noncharacters with 400 invalid_page saying it needs a visible character', async () => {
    for (const [title, found] of [
      ['\uE000\uE001', 'E000'],
      [' \u{100000} ', '100000'],
      ['\uFDEF', 'FDEF'],
      ['\u{10FFFE}', '10FFFE'],
    ]) {
      const message = `must have a visible character, not only private-use characters or noncharacters, which show as nothing or as empty boxes (found U+${found}): send a short title for the page in words`;
      const r = await api(svc.url, 'PUT', page('private'), { title, markdown: 'x' });
      expect(r.status, JSON.stringify(title)).toBe(400);
      expect(r.body.error, JSON.stringify(title)).toEqual({ code: 'invalid_page', message: `title ${message}`, details: [{ path: 'title', code: 'too_small', message }] });
    }
    expect((await api(svc.url, 'GET', page('private'))).status).toBe(404);
    const r = await api(svc.url, 'PUT', page('private'), { title: 'Logo \uE000 \u2764\uFE0F', markdown: 'x' });
    expect(r.status).toBe(201);
    expect(r.body.title).toBe('Logo \uE000 \u2764\uFE0F');
  });

  it('counts a title in code points, an emoji as one: 150 and 151 emoji are titles; 301 emoji or letters are 400 invalid_request saying how many', async () => {
    for (const n of [150, 151, 300]) {
      const r = await api(svc.url, 'PUT', page(`emoji-${n}`), { title: '\u{1F600}'.repeat(n), markdown: 'x' });
      expect(r.status, `${n} emoji`).toBe(201);
      expect([...r.body.title]).toHaveLength(n);
    }
    for (const title of ['\u{1F600}'.repeat(301), 'a'.repeat(301), `${'a'.repeat(299)}\u{1F600}\u{1F600}`]) {
      const r = await api(svc.url, 'PUT', page('emoji-long'), { title, markdown: 'x' });
      const message = 'must be at most 300 characters long, got 301';
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({ code: 'invalid_request', message: `title ${message}`, details: [{ path: 'title', code: 'too_big', message }] });
      expect(validateResponse('/v1/agents/{agent_id}/brain/pages/{slug}', 'put', 400, r.body)).toEqual([]);
    }
    expect((await api(svc.url, 'GET', page('emoji-long'))).status).toBe(404);
  });

  it('keeps right-to-left text, emoji with joiners (ZWJ) and words with a non-joiner (ZWNJ) as they are', async () => {
    for (const [slug, title] of [
      ['hebrew', 'מדריך פריסה'],
      ['emoji', 'Team 👩\u200D💻 notes'],
      ['persian', 'می\u200Cخواهم'],
    ]) {
      const r = await api(svc.url, 'PUT', page(slug), { title, markdown: 'x' });
      expect(r.status).toBe(201);
      expect(r.body.title).toBe(title);
    }
  });
});

describeEachEngine('brain store: page titles', (engine) => {
  let opened: OpenStores | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });

  it('refuses a title with a control character, a bidi control or no visible character, naming it, and stores nothing', async () => {
    const s = (opened = await openStores(engine)).brain;
    for (const [title, found] of [
      ['\u0000\u202E', 'U+0000 (a control character), found at character 1'],
      ['Runbook \u202Efdp.exe', 'U+202E (a bidirectional control), found at character 9'],
      ['Run\u200Bbook', 'U+200B (an invisible character), found at character 4'],
      ['Runbook\u2028', 'U+2028 (a line or paragraph separator), found at character 8'],
    ]) {
      const err = await s.put('a1', 'p', { title, markdown: 'x' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BrainInputError);
      expect((err as BrainInputError).details).toContainEqual({ path: 'title', code: 'invalid_format', message: refusal(found) });
    }
    const blank = await s.put('a1', 'p', { title: '\u2800\u0301', markdown: 'x' }).catch((e: unknown) => e);
    expect((blank as BrainInputError).details).toEqual([
      { path: 'title', code: 'too_small', message: 'must have a visible character, not only whitespace or invisible characters (found U+2800): send a short title for the page in words' },
    ]);
    expect(await s.get('a1', 'p')).toBeUndefined();
  });

  it('counts a title in code points, as the REST check does: 300 emoji are stored, 301 refused saying "got 301"', async () => {
    const s = (opened = await openStores(engine)).brain;
    expect((await s.put('a1', 'p', { title: '\u{1F600}'.repeat(300), markdown: 'x' })).created).toBe(true);
    const err = await s.put('a1', 'q', { title: '\u{1F600}'.repeat(301), markdown: 'x' }).catch((e: unknown) => e);
    expect((err as BrainInputError).details).toEqual([{ path: 'title', code: 'too_big', message: 'must be at most 300 characters long, got 301: shorten it' }]);
  });

  it('refuses a title of only a byte order mark U+FEFF for that character, not as empty (trim() strips U+FEFF)', async () => {
    const s = (opened = await openStores(engine)).brain;
    const err = await s.put('a1', 'p', { title: ' \uFEFF', markdown: 'x' }).catch((e: unknown) => e);
    expect((err as BrainInputError).details).toEqual([{ path: 'title', code: 'invalid_format', message: refusal('U+FEFF (an invisible character), found at character 2') }]);
  });
});
