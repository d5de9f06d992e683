/**
 * Reading SKILL_SECRETS (src/skills/secrets.ts) from real files: a value of 8 characters or more
 * is used; a shorter one refuses the whole file, naming the variable (by its line number when its
 * name is not conventional upper case or its value is `=` padding: a pasted token) and its length,
 * never the value; lines that are no NAME=value setting (no =, a name that is not an environment variable
 * name, an empty value) refuse it by line number, never showing the line or a value, while blank
 * lines, # comments, export prefixes and quoted (also multi-line) values stay allowed; a refused
 * edit's log line lists only the kept values' names that may be shown; the minimum is not below the length under which provider errors are not scrubbed
 * (src/model/provider-text.ts MIN_SECRET_CHARS), so every accepted value is scrubbed there too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIN_SECRET_CHARS, scrubSecrets } from '../../src/model/provider-text.js';
import { loadSecrets, MalformedSecretsError, MIN_SKILL_SECRET_CHARS, SETTLE_MS, ShortSecretError, SkillSecrets } from '../../src/skills/secrets.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'skill-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};

describe('SKILL_SECRETS values', () => {
  it('are used from 8 characters; a shorter one refuses the file by name and length', async () => {
    expect(MIN_SKILL_SECRET_CHARS).toBe(8);
    expect([...(await loadSecrets(file('ok.env', 'A=abcdefgh\n')))]).toEqual([['A', 'abcdefgh']]);
    const short = file('short.env', 'A=abcdefgh\nB=ab€cdef\n');
    const err = await loadSecrets(short).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShortSecretError);
    expect((err as ShortSecretError).short).toEqual([{ line: 2, name: 'B', length: 7 }]);
    expect((err as Error).message).toBe(
      `SKILL_SECRETS file ${short}: the value of B (7 characters) is shorter than 8 characters, the minimum for a secret (a shorter value would be replaced inside every command output and give itself away by the pattern); use a longer value or remove B`,
    );
    expect((err as Error).message).not.toContain('ab€cdef');
  });

  it('allow blank lines, # comments, export prefixes, inline comments, quoted values, also across lines, and names in lower case', async () => {
    const text = '# secrets\n\n  \nexport A=abcdefgh\nB = "quoted value" # note\nC=\'single-quoted\'\nD="first line\nsecond line"\n   # indented comment\nE=plain-value-1 # trailing\nvault_token=lower-case-name\n_Mixed9=underscore-first\n';
    expect(Object.fromEntries(await loadSecrets(file('syntax.env', text)))).toEqual({
      A: 'abcdefgh',
      B: 'quoted value',
      C: 'single-quoted',
      D: 'first line\nsecond line',
      E: 'plain-value-1',
      vault_token: 'lower-case-name',
      _Mixed9: 'underscore-first',
    });
  });

  it('refuse lines that are no NAME=value setting and empty values, by line number, never showing a line or a value', async () => {
    const bad = file('bad.env', '# ok\nGOOD=abcdefgh\nsk-live-LinePastedAlone99\n1BAD=value-12345\nA=\nMY-NAME=value-67890\nB=""\n');
    const err = await loadSecrets(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedSecretsError);
    expect((err as MalformedSecretsError).problems).toEqual([
      'line 3 is not NAME=value (it has no =)',
      'line 4: its name is not an environment variable name',
      'line 5 has an empty value',
      'line 6: its name is not an environment variable name',
      'line 7: B has an empty value',
    ]);
    expect((err as Error).message).toBe(
      `SKILL_SECRETS file ${bad}: line 3 is not NAME=value (it has no =); line 4: its name is not an environment variable name; line 5 has an empty value; line 6: its name is not an environment variable name; line 7: B has an empty value; fix or remove those lines (each line is NAME=value with NAME an environment variable name — letters, digits and _, not starting with a digit — and a value; blank lines and # comments are allowed)`,
    );
    expect((err as Error).message).not.toMatch(/LinePastedAlone|value-12345|value-67890|1BAD|MY-NAME/);
    // Quoted white space only is empty too (8 spaces would be redacted in every command output).
    const blank = await loadSecrets(file('blank.env', 'GOOD=abcdefgh\nW="        "\n')).catch((e: unknown) => e);
    expect((blank as MalformedSecretsError).problems).toEqual(['line 2: W has an empty value (only white space)']);
    const one = await loadSecrets(file('one.env', 'BAD LINE\n')).catch((e: unknown) => e);
    expect((one as Error).message).toMatch(/: line 1 is not NAME=value \(it has no =\); fix or remove that line \(/);
  });

  /** Every 8-character piece of `token` (none may appear in a message). */
  const pieces = (token: string) => Array.from({ length: token.length - 7 }, (_, i) => token.slice(i, i + 8));

  it('name a setting only by its line number unless its name is conventional (upper case, at most 64 characters) and its value no = padding: a pasted token never shows', async () => {
    // A base64 token pasted without NAME=: its padding splits it into a "name" and a value of "=".
    const b64 = 'c2stbGl2ZS1zdXBlcnNlY3JldC10b2tlbg';
    const pasted = file('pasted.env', `GOOD=abcdefgh\n${b64}==\n`);
    const short = await loadSecrets(pasted).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(ShortSecretError);
    expect((short as ShortSecretError).short).toEqual([{ line: 2, length: 1 }]);
    expect((short as Error).message).toBe(
      `SKILL_SECRETS file ${pasted}: the value of the setting on line 2 (1 character) is shorter than 8 characters, the minimum for a secret (a shorter value would be replaced inside every command output and give itself away by the pattern); use a longer value or remove line 2`,
    );
    // A "name" holding a key (`API_KEY: sk-…=x`) is never quoted.
    const key = 'sk-live-abcdef1234567890';
    const colon = await loadSecrets(file('colon.env', `API_KEY: ${key}=x\n`)).catch((e: unknown) => e);
    expect((colon as MalformedSecretsError).problems).toEqual(['line 1: its name is not an environment variable name']);
    // Upper-case base32 with padding looks like a conventional name: the padding hides it too.
    const b32 = 'JBSWY3DPEHPK3PXPJBSWY3DP';
    const one = await loadSecrets(file('b32-one.env', `${b32}=\n`)).catch((e: unknown) => e);
    expect((one as MalformedSecretsError).problems).toEqual(['line 1 has an empty value']);
    const three = await loadSecrets(file('b32-three.env', `${b32}===\n`)).catch((e: unknown) => e);
    expect((three as ShortSecretError).short).toEqual([{ line: 1, length: 2 }]);
    // Lower case, or longer than 64 characters: named by line only.
    const lower = await loadSecrets(file('lower.env', `vault_token=abc\n${'A'.repeat(65)}=abc\nPIN=1234\n`)).catch((e: unknown) => e);
    expect((lower as ShortSecretError).short).toEqual([{ line: 1, length: 3 }, { line: 2, length: 3 }, { line: 3, name: 'PIN', length: 4 }]);
    expect((lower as Error).message).toContain('the values of the setting on line 1 (3 characters), the setting on line 2 (3 characters), PIN (4 characters) are shorter');
    expect((lower as Error).message).toContain('remove line 1, line 2, PIN');
    for (const [err, token] of [[short, b64], [colon, key], [one, b32], [three, b32]] as const) {
      for (const piece of pieces(token)) expect((err as Error).message).not.toContain(piece);
    }
    expect((lower as Error).message).not.toMatch(/vault_token|AAAAAAAA/);
  });

  it('a refused edit is logged naming only the values read before whose names may be shown', async () => {
    const f = file('kept.env', 'VAULT_TOKEN=abcdefgh\nlower_case_name=abcdefgh\n');
    const warned: string[] = [];
    const s = new SkillSecrets(f, { warn: (_o, msg) => void warned.push(msg), info: () => {} });
    expect((await s.read()).size).toBe(2);
    const b64 = 'c2stbGl2ZS1zdXBlcnNlY3JldC10b2tlbg';
    writeFileSync(f, `VAULT_TOKEN=abcdefgh\n${b64}==\n`);
    expect([...(await s.read()).keys()]).toEqual(['VAULT_TOKEN', 'lower_case_name']);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('the value of the setting on line 2 (1 character)');
    expect(warned[0]).toContain('the values read before (VAULT_TOKEN, 1 setting whose name is not shown) stay in use');
    for (const piece of [...pieces(b64), 'lower_case_name']) expect(warned[0]).not.toContain(piece);
  });

  it('SkillSecrets sees an edit that keeps the size, made at once or after the file settled (the cache of an unchanged file is keyed on inode, size and times)', async () => {
    const f = file('cache.env', 'VAULT_TOKEN=value-AAAA\n');
    const s = new SkillSecrets(f);
    expect((await s.read()).get('VAULT_TOKEN')).toBe('value-AAAA');
    // Same inode and size, within the file system's clock tick of the previous write: read again.
    writeFileSync(f, 'VAULT_TOKEN=value-BBBB\n');
    expect((await s.read()).get('VAULT_TOKEN')).toBe('value-BBBB');
    // Settled (last change over SETTLE_MS ago): the unchanged file is taken from the cache, an edit is not.
    await new Promise((r) => setTimeout(r, SETTLE_MS + 200));
    expect((await s.read()).get('VAULT_TOKEN')).toBe('value-BBBB');
    expect((await s.read()).get('VAULT_TOKEN')).toBe('value-BBBB');
    writeFileSync(f, 'VAULT_TOKEN=value-CCCC\n');
    expect((await s.read()).get('VAULT_TOKEN')).toBe('value-CCCC');
  }, 10_000);

  it('accepted values are all long enough to be scrubbed from provider errors', () => {
    expect(MIN_SKILL_SECRET_CHARS).toBeGreaterThanOrEqual(MIN_SECRET_CHARS);
    const value = 'x'.repeat(MIN_SKILL_SECRET_CHARS);
    expect(scrubSecrets(`bad key ${value}`, [{ name: 'S', value }])).toBe('bad key [redacted:S]');
  });
});
