/**
 * Logging for work that is retried on its own (periodic passes, the Postgres LISTEN connection)
 * without flooding the log while a dependency is down: {@link FailureLog} logs the first failure of
 * a run of failures (with the error), each different error once, then one summary line at most
 * every {@link FAILURE_SUMMARY_MS} (`… still failing after N attempts`), and one `… recovered`
 * line at `info` when the work succeeds again.
 */

/** How often a run of failures is summarized in the log while it lasts, ms. */
export const FAILURE_SUMMARY_MS = 60_000;

/** Distinct errors logged in full per run of failures; later new ones only count toward the summary. */
const MAX_DISTINCT = 10;

type LogFn = (obj: object, msg?: string) => void;

/** The logger methods {@link FailureLog} uses (a pino logger has them). */
export interface FailureLogger {
  error: LogFn;
  /** For `level: 'warn'` (else `error` is used). */
  warn?: LogFn;
  /** For the `recovered` line (else nothing is logged then). */
  info?: LogFn;
}

export interface FailureLogOptions {
  /** Level of the failure and summary lines [error]. */
  level?: 'error' | 'warn';
  /** Ms between summary lines while failing [{@link FAILURE_SUMMARY_MS}]. */
  summaryMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

/** What makes two failures "the same": the error's name, code and message. */
function signature(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { name?: unknown; code?: unknown; message?: unknown };
    return `${String(e.name)}|${String(e.code)}|${String(e.message)}`;
  }
  return String(err);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The log of one kind of retried work, named `what` (`approval sweep`, `Postgres LISTEN
 * connection`, …): call {@link failed} after each failed attempt and {@link succeeded} after each
 * one that worked. Lines: `<what> failed` (the first failure, and each different error after it,
 * with `err` and `attempts`), `<what> still failing after N attempts` (with `since` and the last
 * `error` message; at most once per summary interval) and `<what> recovered after N failed
 * attempts` (at `info`, with `failing_ms`). Without a logger nothing is logged.
 */
export class FailureLog {
  private failures = 0;
  private since = 0;
  private lastSummaryAt = 0;
  private readonly seen = new Set<string>();
  private readonly level: 'error' | 'warn';
  private readonly summaryMs: number;
  private readonly now: () => number;

  constructor(
    private readonly log: FailureLogger | undefined,
    private readonly what: string,
    opts: FailureLogOptions = {},
  ) {
    this.level = opts.level ?? 'error';
    this.summaryMs = opts.summaryMs ?? FAILURE_SUMMARY_MS;
    this.now = opts.now ?? Date.now;
  }

  /** Failed attempts in the current run of failures (0 after a success). */
  get attempts(): number {
    return this.failures;
  }

  /**
   * Record a failed attempt; logs it only when it starts a run of failures, is a new error, or a
   * summary is due. An error with code `shutting_down` (the service is stopping: a write refused
   * after another service took DATA_DIR over, src/store/database.ts `DataDirLostError`, or a
   * request met during shutdown) is no failure of `<what>`: it is neither counted nor logged (the
   * stop is logged where it is decided), so no `recovered` line follows it either.
   */
  failed(err: unknown, fields: object = {}): void {
    if ((err as { code?: unknown } | null)?.code === 'shutting_down') return;
    const now = this.now();
    this.failures++;
    if (this.failures === 1) {
      this.since = now;
      this.lastSummaryAt = now;
    }
    const sig = signature(err);
    if (!this.seen.has(sig) && this.seen.size < MAX_DISTINCT) {
      this.seen.add(sig);
      this.write({ ...fields, err, attempts: this.failures }, `${this.what} failed`);
      return;
    }
    if (now - this.lastSummaryAt >= this.summaryMs) {
      this.lastSummaryAt = now;
      this.write(
        { ...fields, attempts: this.failures, since: new Date(this.since).toISOString(), error: messageOf(err) },
        `${this.what} still failing after ${this.failures} attempts`,
      );
    }
  }

  private write(obj: object, msg: string): void {
    const log = this.log;
    if (!log) return;
    (this.level === 'warn' && log.warn ? log.warn : log.error).call(log, obj, msg);
  }

  /** Record a successful attempt; after failures, logs `recovered` once and starts over. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.log?.info?.({ attempts: this.failures, failing_ms: this.now() - this.since }, `${this.what} recovered after ${this.failures} failed attempt${this.failures === 1 ? '' : 's'}`);
    this.failures = 0;
    this.seen.clear();
  }
}
