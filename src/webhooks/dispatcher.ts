/**
 * The webhook dispatcher: sends stored deliveries (./store.ts) and retries failures, beside the
 * HTTP server (a background service: start/stop). Rules:
 * - an attempt succeeds on a 2xx answer; a non-2xx answer, a timeout, a connection error or a
 *   refused target is a failure;
 * - after failed attempt n the next one is due WEBHOOK_RETRY_BASE_MS × 2^(n−1) later, capped at
 *   1 h; when that would be more than 24 h after the delivery was created it is given up
 *   (`failed`). Due times are stored, so retries continue across restarts; an answer that refuses
 *   for good (HTTP 410 Gone, ./sender.ts) fails the delivery at once;
 * - an attempt cut by a stop of its instance (SIGKILL, crash: its lease still set when the
 *   delivery is claimed again) is recorded as interrupted (`status` and `duration_ms` null) before
 *   the next one, which is sent at once;
 * - attempts are independent: up to MAX_IN_FLIGHT run at once and a slot freed by one that ends
 *   is filled at once with the next due delivery, so a slow receiver (up to WEBHOOK_TIMEOUT_MS per
 *   attempt) delays no other receiver's deliveries;
 * - deliveries never touch the turn: they are enqueued after its terminal event is stored, run
 *   here on their own timer, and their failures are only recorded, counted in
 *   `webhook_deliveries_total{outcome}` (`delivered`, `retrying`, `failed`) and logged.
 */
import { FailureLog } from '../failure-log.js';
import { randomUUID } from 'node:crypto';
import type { ServiceMetrics } from '../telemetry/metrics.js';
import type { HostResolver } from '../tools/web/target-guard.js';
import { sendWebhook } from './sender.js';
import { redactUserinfo } from '../config.js';
import type { Delivery, DeliveryAttempt, NewDelivery, WebhookStore } from './store.js';

export const MAX_RETRY_DELAY_MS = 3_600_000;
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;
/** Attempts one instance has under way at once; each slot is refilled as soon as its attempt ends. */
export const MAX_IN_FLIGHT = 16;
/** The `error` of an attempt cut by a stop of the instance sending it (SIGKILL, crash): its outcome is unknown. */
export const INTERRUPTED_ATTEMPT = 'interrupted: the instance sending it stopped before an answer was recorded (the receiver may have got it); sent again';

export interface DispatcherDeps {
  store: WebhookStore;
  secret: string | undefined;
  /** WEBHOOK_SECRET_PREVIOUS: deliveries are signed with it too, while receivers switch secrets. */
  previousSecret?: string;
  allowHosts: readonly string[];
  resolver: HostResolver;
  retryBaseMs: number;
  timeoutMs: number;
  metrics: ServiceMetrics;
  log: { warn: (o: object, m?: string) => void; error: (o: object, m?: string) => void; info?: (o: object, m?: string) => void };
  now?: () => number;
  /** Longest sleep between looks at the store, ms [1000]. */
  maxIdleMs?: number;
}

/** Delay before attempt n+1 after attempt n failed (n ≥ 1). */
export function retryDelay(failedAttempts: number, baseMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (failedAttempts - 1));
}

export class WebhookDispatcher {
  private readonly owner = `dispatcher-${randomUUID()}`;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = true;
  private busy: Promise<void> = Promise.resolve();
  /** Attempts under way (each removes itself when it ends). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Set when a wake came during a pass: the pass is followed by another at once. */
  private again = false;
  private shutdown = new AbortController();
  private readonly now: () => number;

  /** Failed passes (an outage): logged once, then summarized (src/failure-log.ts). */
  private readonly failures: FailureLog;

  constructor(private readonly deps: DispatcherDeps) {
    this.failures = new FailureLog(deps.log, 'webhook dispatcher');
    this.now = deps.now ?? Date.now;
  }

  /** Store deliveries and wake the loop. */
  async enqueue(deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.deps.store.enqueue(deliveries);
    this.wake(0);
  }

  start(): void {
    this.stopped = false;
    if (this.shutdown.signal.aborted) this.shutdown = new AbortController();
    this.wake(0);
  }

  /** Stop the loop; attempts in flight are aborted (recorded as failed, retried after the restart). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.shutdown.abort();
    await this.busy;
    await Promise.all([...this.inFlight]);
  }

  private wake(inMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), Math.max(0, inMs));
    this.timer.unref();
  }

  /**
   * Claim due deliveries into the free slots (up to {@link MAX_IN_FLIGHT} attempts at a time) and
   * start them; each attempt that ends frees its slot and wakes this again, so a slow receiver
   * holds one slot, never the others' deliveries. Each delivery is leased on its own (claimDue),
   * so several instances share the due ones.
   */
  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.running) {
      this.again = true; // an attempt ended (or a delivery came) during this pass: look again after it
      return;
    }
    this.running = true;
    this.again = false;
    let done!: () => void;
    this.busy = new Promise((r) => (done = r));
    try {
      while (!this.stopped && this.inFlight.size < MAX_IN_FLIGHT) {
        const batch = await this.deps.store.claimDue(this.now(), MAX_IN_FLIGHT - this.inFlight.size, this.owner, this.deps.timeoutMs * 2 + 5_000);
        if (batch.length === 0) break;
        for (const d of batch) {
          const run: Promise<void> = this.attempt(d)
            .catch((err) => this.failures.failed(err))
            .finally(() => {
              this.inFlight.delete(run);
              this.wake(0);
            });
          this.inFlight.add(run);
        }
      }
      this.failures.succeeded();
    } catch (err) {
      this.failures.failed(err);
    } finally {
      this.running = false;
      done();
    }
    if (this.again) return this.wake(0);
    // With every slot taken, the next attempt to end wakes the loop; otherwise look again when the next delivery is due.
    if (this.inFlight.size >= MAX_IN_FLIGHT) return;
    const next = await this.deps.store.nextDueAt().catch(() => null);
    const idle = this.deps.maxIdleMs ?? 1000;
    this.wake(next === null ? idle : Math.min(idle, next - this.now()));
  }

  private async attempt(d: Delivery): Promise<void> {
    // The previous claim's attempt was cut (its instance was killed while sending): listed as
    // interrupted, with the outcome unknown (the receiver may have got it), before this one.
    const interrupted: DeliveryAttempt[] =
      d.interrupted_at === undefined
        ? []
        : [{ attempt: d.attempts.length + 1, at: new Date(d.interrupted_at).toISOString(), status: null, error: INTERRUPTED_ATTEMPT, duration_ms: null }];
    if (interrupted.length > 0) {
      this.deps.log.warn({ delivery_id: d.id, message_id: d.message_id, url: redactUserinfo(d.url), attempt: interrupted[0].attempt }, 'webhook attempt interrupted by a stop of the instance sending it; sending again');
    }
    const n = d.attempts.length + interrupted.length + 1;
    const started = this.now();
    const result = this.deps.secret
      ? await sendWebhook(d.url, d.message_id, d.payload, { secret: this.deps.secret, previousSecret: this.deps.previousSecret, allowHosts: this.deps.allowHosts, resolver: this.deps.resolver, timeoutMs: this.deps.timeoutMs, signal: this.shutdown.signal })
      : { status: null, error: 'WEBHOOK_SECRET is not set: cannot sign the delivery' };
    const finished = this.now();
    const attempt = { attempt: n, at: new Date(started).toISOString(), status: result.status, error: result.error, duration_ms: finished - started };
    if (result.error === null) {
      await this.deps.store.recordAttempt(d.id, [...interrupted, attempt], { state: 'delivered', next_attempt_at: null });
      this.deps.metrics.webhookDeliveries.inc({ outcome: 'delivered' });
      return;
    }
    const due = finished + retryDelay(n, this.deps.retryBaseMs);
    const giveUp = result.permanent === true || due > d.created_at + DELIVERY_WINDOW_MS;
    await this.deps.store.recordAttempt(d.id, [...interrupted, attempt], giveUp ? { state: 'failed', next_attempt_at: null } : { state: 'pending', next_attempt_at: due });
    this.deps.metrics.webhookDeliveries.inc({ outcome: giveUp ? 'failed' : 'retrying' });
    this.deps.log.warn({ delivery_id: d.id, message_id: d.message_id, url: redactUserinfo(d.url), attempt: n, status: result.status, reason: result.error, next_attempt_at: giveUp ? null : new Date(due).toISOString() }, giveUp ? 'webhook delivery given up' : 'webhook delivery failed; will retry');
  }
}
