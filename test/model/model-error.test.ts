import { describe, expect, it } from 'vitest';
import { connectionCause, connectionError } from '../../src/model/model-error.js';

describe('connectionCause: the system-level reason of a failed model connection', () => {
  it('takes the first errno-style code in the cause chain, with host and port', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4999'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 4999 });
    expect(connectionCause(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED 127.0.0.1:4999');
    expect(connectionCause(refused)).toBe('ECONNREFUSED 127.0.0.1:4999');
  });

  it("takes undici's code with its message", () => {
    const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(connectionCause(new Error('Connection error.', { cause: closed }))).toBe('UND_ERR_SOCKET: other side closed');
  });

  it('follows the first failure of a happy-eyeballs AggregateError', () => {
    const v6 = Object.assign(new Error('connect ECONNREFUSED ::1:80'), { code: 'ECONNREFUSED', address: '::1', port: 80 });
    const v4 = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:80'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 80 });
    expect(connectionCause(new Error('Connection error.', { cause: new AggregateError([v6, v4]) }))).toBe('ECONNREFUSED ::1:80');
  });

  it('names the innermost message when no error of the chain has a code (a WHATWG fetch refusing port 1 says "bad port")', () => {
    const err = new Error('Connection error.', { cause: new TypeError('fetch failed', { cause: new Error('bad port') }) });
    expect(connectionCause(err)).toBe('bad port');
    expect(connectionError(err, 'http://127.0.0.1:1/v1').message).toBe('could not connect to the model endpoint http://127.0.0.1:1/v1 (bad port): check OPENAI_BASE_URL and that the model server is running and reachable from this host');
  });

  it('is undefined for an error without a cause', () => {
    expect(connectionCause(new Error('Connection error.'))).toBeUndefined();
    expect(connectionError(new Error('Connection error.')).message).toBe('could not connect to the model provider (Connection error.): check OPENAI_BASE_URL and that the model server is running and reachable from this host');
  });
});
