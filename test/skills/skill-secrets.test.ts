/**
 * Reading SKILL_SECRETS (src/skills/secrets.ts) from real files: a value of 8 characters or more
 * is used; a shorter one refuses the whole file, naming the variable and its length, never the
 * value; lines that are no NAME=value setting (no =, a name that is not an environment variable
 * name, an empty value) refuse it by line number, never showing the line or a value, while blank
 * lines, # comments, export prefixes and quoted (also multi-line) values stay allowed; the minimum is not below the length under which provider errors are not scrubbed
 * (src/model/provider-text.ts MIN_SECRET_CHARS), so every accepted value is scrubbed there too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIN_SECRET_CHARS, scrubSecrets } from '../../src/model/provider-text.js';
import { loadSecrets, MalformedSecretsError, MIN_SKILL_SECRET_CHARS, ShortSecretError } from '../../src/skills/secrets.js';

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
    expect((err as ShortSecretError).short).toEqual([{ name: 'B', length: 7 }]);
    expect((err as Error).message).toBe(
      `SKILL_SECRETS file ${short}: the value of B (7 characters) is shorter than 8 characters, the minimum for a secret (a shorter value would be replaced inside every command output and give itself away by the pattern); use a longer value or remove B`,
    );
    expect((err as Error).message).not.toContain('ab€cdef');
  });

  it('allow blank lines, # comments, export prefixes, inline comments and quoted values, also across lines', async () => {
    const text = '# secrets\n\n  \nexport A=abcdefgh\nB = "quoted value" # note\nC=\'single-quoted\'\nD="first line\nsecond line"\n   # indented comment\nE=plain-value-1 # trailing\n';
    expect(Object.fromEntries(await loadSecrets(file('syntax.env', text)))).toEqual({
      A: 'abcdefgh',
      B: 'quoted value',
      C: 'single-quoted',
      D: 'first line\nsecond line',
      E: 'plain-value-1',
    });
  });

  it('refuse lines that are no NAME=value setting and empty values, by line number, never showing a line or a value', async () => {
    const bad = file('bad.env', '# ok\nGOOD=abcdefgh\nsk-live-LinePastedAlone99\n1BAD=value-12345\nA=\nMY-NAME=value-67890\nB=""\n');
    const err = await loadSecrets(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedSecretsError);
    expect((err as MalformedSecretsError).problems).toEqual([
      'line 3 is not NAME=value (it has no =)',
      'line 4: "1BAD" is not an environment variable name',
      'line 5: A has an empty value',
      'line 6: "MY-NAME" is not an environment variable name',
      'line 7: B has an empty value',
    ]);
    expect((err as Error).message).toBe(
      `SKILL_SECRETS file ${bad}: line 3 is not NAME=value (it has no =); line 4: "1BAD" is not an environment variable name; line 5: A has an empty value; line 6: "MY-NAME" is not an environment variable name; line 7: B has an empty value; fix or remove those lines (each line is NAME=value with NAME an environment variable name — letters, digits and _, not starting with a digit — and a value; blank lines and # comments are allowed)`,
    );
    expect((err as Error).message).not.toMatch(/LinePastedAlone|value-12345|value-67890/);
    // Quoted white space only is empty too (8 spaces would be redacted in every command output).
    const blank = await loadSecrets(file('blank.env', 'GOOD=abcdefgh\nW="        "\n')).catch((e: unknown) => e);
    expect((blank as MalformedSecretsError).problems).toEqual(['line 2: W has an empty value (only white space)']);
    const one = await loadSecrets(file('one.env', 'BAD LINE\n')).catch((e: unknown) => e);
    expect((one as Error).message).toMatch(/: line 1 is not NAME=value \(it has no =\); fix or remove that line \(/);
  });

  it('accepted values are all long enough to be scrubbed from provider errors', () => {
    expect(MIN_SKILL_SECRET_CHARS).toBeGreaterThanOrEqual(MIN_SECRET_CHARS);
    const value = 'x'.repeat(MIN_SKILL_SECRET_CHARS);
    expect(scrubSecrets(`bad key ${value}`, [{ name: 'S', value }])).toBe('bad key [redacted:S]');
  });
});
