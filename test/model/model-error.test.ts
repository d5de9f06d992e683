import { describe, expect, it } from 'vitest';
import { CLOSED_HINT, connectionCause, connectionError, CONNECTION_HINT } from '../../src/model/model-error.js';

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

describe('connectionError: could not connect, or connected and closed before answering', () => {
  const withCause = (cause: object) => new Error('Connection error.', { cause: Object.assign(new Error('x'), cause) });
  it('says the endpoint closed the connection before answering for a closed or reset socket', () => {
    for (const [cause, shown] of [[{ code: 'UND_ERR_SOCKET', message: 'other side closed' }, 'UND_ERR_SOCKET: other side closed'], [{ code: 'ECONNRESET' }, 'ECONNRESET'], [{ code: 'EPIPE' }, 'EPIPE']] as const) {
      expect(connectionError(withCause(cause), 'http://127.0.0.1:8000/v1')).toMatchObject({ code: 'connection_error', message: `the model endpoint http://127.0.0.1:8000/v1 accepted the connection and closed it before answering (${shown}): ${CLOSED_HINT}` });
    }
  });

  it('keeps "could not connect" for a refused connection, a failed DNS lookup and a connect timeout', () => {
    for (const [cause, shown] of [[{ code: 'ECONNREFUSED', address: '127.0.0.1', port: 1 }, 'ECONNREFUSED 127.0.0.1:1'], [{ code: 'ENOTFOUND', hostname: 'nowhere.invalid' }, 'ENOTFOUND nowhere.invalid'], [{ code: 'UND_ERR_CONNECT_TIMEOUT', message: 'Connect Timeout Error' }, 'UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error']] as const) {
      expect(connectionError(withCause(cause), 'http://h/v1').message).toBe(`could not connect to the model endpoint http://h/v1 (${shown}): ${CONNECTION_HINT}`);
    }
  });
});
