import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const secret = 'a-shared-secret-of-32-characters';

describe('database configuration', () => {
  it('keeps the embedded SQLite database when DATABASE_URL is unset', () => {
    const c = loadConfig({});
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.DATABASE_POOL_MAX).toBe(10);
  });

  it('switches to Postgres with a postgres:// URL and a pool size', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/turns', DATABASE_POOL_MAX: '25', STREAM_TOKEN_SECRET: secret });
    expect(c).toMatchObject({ DATABASE_URL: 'postgres://u:p@db:5432/turns', DATABASE_POOL_MAX: 25 });
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/turns', STREAM_TOKEN_SECRET: secret }).DATABASE_URL).toBe('postgresql://db/turns');
  });

  it('refuses DATABASE_URL without STREAM_TOKEN_SECRET, saying why it is needed', () => {
    const err = (() => {
      try {
        loadConfig({ DATABASE_URL: 'postgres://db/turns' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([expect.stringMatching(/^STREAM_TOKEN_SECRET is required when DATABASE_URL is set: every instance must verify/)]);
  });

  it('refuses other URL schemes and bad pool sizes with one line each, never echoing the URL (it may hold a password)', () => {
    try {
      loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/turns', DATABASE_POOL_MAX: '0', STREAM_TOKEN_SECRET: secret });
      expect.unreachable();
    } catch (e) {
      const problems = (e as ConfigError).problems;
      expect(problems).toHaveLength(2);
      expect(problems[0]).toMatch(/^DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/);
      expect(problems[1]).toMatch(/^DATABASE_POOL_MAX=0:/);
      expect((e as Error).message).not.toContain('hunter2');
    }
  });

  it('bounds Postgres statements: 30 s by default, DATABASE_STATEMENT_TIMEOUT_MS from 100 ms to 1 h', () => {
    expect(loadConfig({}).DATABASE_STATEMENT_TIMEOUT_MS).toBe(30_000);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '2500' }).DATABASE_STATEMENT_TIMEOUT_MS).toBe(2500);
    for (const bad of ['0', '99', '3600001', '1e4']) {
      expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: bad })).toThrow(new RegExp(`DATABASE_STATEMENT_TIMEOUT_MS=${bad}: must be an integer from 100 to 3600000`));
    }
  });

  it('never repeats a secret in a configuration error', () => {
    expect(() => loadConfig({ STREAM_TOKEN_SECRET: 'short-secret' })).toThrow(/STREAM_TOKEN_SECRET: /);
    expect(() => loadConfig({ STREAM_TOKEN_SECRET: 'short-secret' })).not.toThrow(/short-secret/);
  });
});
