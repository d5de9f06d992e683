import { describe, expect, it } from 'vitest';
import { createStreamTokens, redactUrl, signStreamToken } from '../../src/http/stream-token.js';

const TURN = '0193a1b2-0000-7000-8000-000000000001';
const OTHER = '0193a1b2-0000-7000-8000-000000000002';

describe('stream tokens', () => {
  it('accepts a token for the turn it was issued for, until it expires', () => {
    let nowMs = 1_700_000_000_000;
    const tokens = createStreamTokens({ secret: 'a-secret-of-16-chars!', ttlSeconds: 900, now: () => nowMs });
    const { token, expiresAt } = tokens.issue(TURN);
    expect(expiresAt.getTime()).toBe(nowMs + 900_000);
    expect(tokens.verify(token, TURN)).toEqual({ ok: true, expiresAt });
    nowMs += 899_000;
    expect(tokens.verify(token, TURN).ok).toBe(true);
    nowMs += 1_000;
    expect(tokens.verify(token, TURN)).toEqual({ ok: false, reason: 'expired' });
  });

  it('rejects a token issued for another turn', () => {
    const tokens = createStreamTokens({ secret: 'a-secret-of-16-chars!', ttlSeconds: 60 });
    expect(tokens.verify(tokens.issue(OTHER).token, TURN)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('binds a token to the kind of stream: a turn token never verifies for a workflow of the same id, nor the reverse', () => {
    const tokens = createStreamTokens({ secret: 'a-secret-of-16-chars!', ttlSeconds: 60 });
    const turnToken = tokens.issue(TURN).token;
    const workflowToken = tokens.issue(TURN, 'workflow').token;
    expect(tokens.verify(workflowToken, TURN, 'workflow').ok).toBe(true);
    expect(tokens.verify(turnToken, TURN, 'turn').ok).toBe(true);
    expect(tokens.verify(turnToken, TURN, 'workflow')).toEqual({ ok: false, reason: 'invalid' });
    expect(tokens.verify(workflowToken, TURN)).toEqual({ ok: false, reason: 'invalid' });
    expect(tokens.verify(tokens.issue(OTHER, 'workflow').token, TURN, 'workflow')).toEqual({ ok: false, reason: 'invalid' });
  });

  it('rejects a token whose expiry was edited (the signature covers it)', () => {
    const tokens = createStreamTokens({ secret: 'a-secret-of-16-chars!', ttlSeconds: 60 });
    const { token } = tokens.issue(TURN);
    const [exp, sig] = token.split('.');
    expect(tokens.verify(`${Number(exp) + 3600}.${sig}`, TURN)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('rejects tokens signed with another secret, and by default secrets differ per process', () => {
    const a = createStreamTokens({ ttlSeconds: 60 });
    const b = createStreamTokens({ ttlSeconds: 60 });
    expect(a.verify(a.issue(TURN).token, TURN).ok).toBe(true);
    expect(b.verify(a.issue(TURN).token, TURN)).toEqual({ ok: false, reason: 'invalid' });
    const c = createStreamTokens({ secret: 'another-secret-16ch', ttlSeconds: 60 });
    expect(c.verify(signStreamToken('a-secret-of-16-chars!', TURN, 4_000_000_000), TURN).ok).toBe(false);
  });

  it('agrees with signStreamToken for the same secret, including an already expired token', () => {
    const secret = 'shared-secret-0123456789';
    const tokens = createStreamTokens({ secret, ttlSeconds: 60 });
    const future = Math.floor(Date.now() / 1000) + 120;
    expect(tokens.verify(signStreamToken(secret, TURN, future), TURN).ok).toBe(true);
    expect(tokens.verify(signStreamToken(secret, TURN, 1_000), TURN)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each(['', 'abc', '123', '123.', '.abc', `12.${'A'.repeat(42)}`, `x1.${'A'.repeat(43)}`, `1.${'A'.repeat(43)}=`, 'Bearer secret'])(
    'calls %j malformed without throwing',
    (bad) => {
      const tokens = createStreamTokens({ ttlSeconds: 60 });
      expect(tokens.verify(bad, TURN)).toEqual({ ok: false, reason: 'malformed' });
    },
  );

  it('refuses a non-positive TTL', () => {
    expect(() => createStreamTokens({ ttlSeconds: 0 })).toThrow(/TTL/);
  });
});

describe('redactUrl', () => {
  it('replaces stream_token and other credential parameters, keeping the rest', () => {
    expect(redactUrl('/v1/turns/t1/events?after=3&stream_token=123.abc')).toBe(
      '/v1/turns/t1/events?after=3&stream_token=[redacted]',
    );
    expect(redactUrl('/x?access_token=s&Token=t&q=1&authorization=u&api_key=v')).toBe(
      '/x?access_token=[redacted]&Token=[redacted]&q=1&authorization=[redacted]&api_key=[redacted]',
    );
  });

  it('leaves URLs without credentials untouched', () => {
    expect(redactUrl('/v1/turns?status=running&agent_id=a')).toBe('/v1/turns?status=running&agent_id=a');
    expect(redactUrl('/healthz')).toBe('/healthz');
  });
});
