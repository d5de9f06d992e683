/**
 * Reading SKILL_SECRETS (src/skills/secrets.ts) from real files: a value of 8 characters or more
 * is used; a shorter one refuses the whole file, naming the variable and its length, never the
 * value; the minimum is not below the length under which provider errors are not scrubbed
 * (src/model/provider-text.ts MIN_SECRET_CHARS), so every accepted value is scrubbed there too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIN_SECRET_CHARS, scrubSecrets } from '../../src/model/provider-text.js';
import { loadSecrets, MIN_SKILL_SECRET_CHARS, ShortSecretError } from '../../src/skills/secrets.js';

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
    expect([...(await loadSecrets(file('ok.env', 'A=abcdefgh\nEMPTY=\n')))]).toEqual([['A', 'abcdefgh']]);
    const short = file('short.env', 'A=abcdefgh\nB=ab€cdef\n');
    const err = await loadSecrets(short).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShortSecretError);
    expect((err as ShortSecretError).short).toEqual([{ name: 'B', length: 7 }]);
    expect((err as Error).message).toBe(
      `SKILL_SECRETS file ${short}: the value of B (7 characters) is shorter than 8 characters, the minimum for a secret (a shorter value would be replaced inside every command output and give itself away by the pattern); use a longer value or remove B`,
    );
    expect((err as Error).message).not.toContain('ab€cdef');
  });

  it('accepted values are all long enough to be scrubbed from provider errors', () => {
    expect(MIN_SKILL_SECRET_CHARS).toBeGreaterThanOrEqual(MIN_SECRET_CHARS);
    const value = 'x'.repeat(MIN_SKILL_SECRET_CHARS);
    expect(scrubSecrets(`bad key ${value}`, [{ name: 'S', value }])).toBe('bad key [redacted:S]');
  });
});
