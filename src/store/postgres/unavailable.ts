/**
 * "The database cannot be reached" as one error: {@link DatabaseUnavailableError} (HTTP 503,
 * code `database_unavailable`), raised by the Postgres stores instead of whatever the driver threw
 * when the server is down, restarting, refusing connections or the pool timed out waiting for one.
 * Requests fail with 503 while the database is away; the pool reconnects by itself when it is back.
 */
import { DomainError } from '../../errors.js';

/** The database is unreachable right now; retry later. Maps to HTTP 503 `database_unavailable`. */
export class DatabaseUnavailableError extends DomainError {
  constructor(cause: unknown) {
    super('database_unavailable', `the database is unavailable right now; retry in a few seconds (${(cause as Error)?.message ?? String(cause)})`, 503);
    this.name = 'DatabaseUnavailableError';
    this.cause = cause;
  }
}

/** Node socket error codes that mean "no connection to the server". */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * SQLSTATEs of a server going away or not answering in time
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html): admin shutdown, crash
 * shutdown, cannot connect now, too many connections, and 57014 `query_canceled` — a statement
 * cancelled by `statement_timeout` (the service cancels nothing else).
 */
const SERVER_GONE = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/**
 * True when `err` means the database cannot be reached or did not answer in time (connection
 * refused/reset, class 08 connection exceptions, admin shutdown / crash / starting up, too many
 * connections, the pool's connect timeout, a client whose connection broke, a statement cancelled
 * by `statement_timeout`, the client's read timeout — "Query read timeout"), as opposed to an
 * error in the statement. A connection that saw one of these is dropped, not reused.
 */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (SOCKET_CODES.has(code) || SERVER_GONE.has(code) || code.startsWith('08')) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|connection error and is not queryable|Client was closed|terminating connection|Query read timeout/i.test(
    message,
  );
}
