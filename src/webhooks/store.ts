/**
 * Durable webhook deliveries: one row per (message, target URL), each attempt recorded. The port
 * is async so a Postgres implementation can sit beside the SQLite one (same shapes, same claim
 * rule); the dispatcher (./dispatcher.ts) is the only writer after `enqueue`.
 *
 * Claiming follows the scheduler's pattern: a conditional UPDATE that takes a due, unleased row
 * for `leaseMs` with an instance id, so two instances never send the same attempt at once and a
 * crashed instance's lease simply expires.
 */
import type { Database } from '../store/database.js';
import type { WebhookSpec } from './webhook-spec.js';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** A delivery to be stored. Times are epoch ms. */
export interface NewDelivery {
  /** The Standard Webhooks message id (`webhook-id`), `msg_<uuid>`; shared by all targets of one message. */
  message_id: string;
  /** What the message is about: `turn`. */
  subject_type: string;
  subject_id: string;
  event_type: string;
  url: string;
  /** The exact body to send (signed as is). */
  payload: string;
  created_at: number;
}

export interface DeliveryAttempt {
  /** 1-based. */
  attempt: number;
  /** ISO 8601. */
  at: string;
  /** HTTP status of the answer, null when none came (connection error, timeout, refused, interrupted). */
  status: number | null;
  /** Why the attempt failed, null on success. */
  error: string | null;
  /** Ms the attempt took; null for an interrupted attempt (its end was never seen). */
  duration_ms: number | null;
}

export interface Delivery extends NewDelivery {
  id: number;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** Epoch ms of the next attempt (null when delivered or failed). */
  next_attempt_at: number | null;
  /**
   * Set by `claimDue` when the row still held an expired lease: the previous claim's attempt never
   * recorded an outcome (its instance was killed mid-attempt). Epoch ms that claim was taken
   * (its lease end less `leaseMs`).
   */
  interrupted_at?: number;
}

export interface WebhookStore {
  enqueue(deliveries: NewDelivery[]): Promise<void>;
  /** Take up to `limit` due pending deliveries (next_attempt_at ≤ now, lease free) for `leaseMs`. */
  claimDue(now: number, limit: number, owner: string, leaseMs: number): Promise<Delivery[]>;
  /** Record an attempt (or several: an interrupted one before it) and the new state; releases the lease. */
  recordAttempt(id: number, attempt: DeliveryAttempt | DeliveryAttempt[], next: { state: DeliveryState; next_attempt_at: number | null }): Promise<void>;
  /** Deliveries of one subject, oldest first. */
  listFor(subjectType: string, subjectId: string): Promise<Delivery[]>;
  /** Earliest next_attempt_at among pending deliveries, or null. */
  nextDueAt(): Promise<number | null>;
  /** Remember the webhook of a subject that has no request record of its own (a workflow). */
  subscribe(subjectType: string, subjectId: string, spec: WebhookSpec): Promise<void>;
  /** The webhook remembered for a subject, if any. */
  subscription(subjectType: string, subjectId: string): Promise<WebhookSpec | undefined>;
}

type Row = Omit<Delivery, 'attempts'> & { attempts: string; lease_owner: string | null; lease_until: number | null };

function toDelivery(r: Row): Delivery {
  return {
    id: r.id,
    message_id: r.message_id,
    subject_type: r.subject_type,
    subject_id: r.subject_id,
    event_type: r.event_type,
    url: r.url,
    payload: r.payload,
    created_at: r.created_at,
    state: r.state,
    attempts: JSON.parse(r.attempts) as DeliveryAttempt[],
    next_attempt_at: r.next_attempt_at,
  };
}

export class SqliteWebhookStore implements WebhookStore {
  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS webhook_deliveries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      message_id TEXT NOT NULL,
      subject_type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      url TEXT NOT NULL,
      payload TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      state TEXT NOT NULL DEFAULT 'pending',
      attempts TEXT NOT NULL DEFAULT '[]',
      next_attempt_at INTEGER,
      lease_owner TEXT,
      lease_until INTEGER,
      UNIQUE (message_id, url)
    );
    CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
    CREATE INDEX IF NOT EXISTS webhook_deliveries_subject ON webhook_deliveries (subject_type, subject_id, id);
    CREATE TABLE IF NOT EXISTS webhook_subscriptions (
      subject_type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      spec TEXT NOT NULL,
      PRIMARY KEY (subject_type, subject_id)
    );`);
  }

  async enqueue(deliveries: NewDelivery[]): Promise<void> {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO webhook_deliveries (message_id, subject_type, subject_id, event_type, url, payload, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const d of deliveries) insert.run(d.message_id, d.subject_type, d.subject_id, d.event_type, d.url, d.payload, d.created_at, d.created_at);
    })();
  }

  async claimDue(now: number, limit: number, owner: string, leaseMs: number): Promise<Delivery[]> {
    const candidates = this.db
      .prepare(`SELECT id, lease_owner, lease_until FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_attempt_at LIMIT ?`)
      .all(now, now, limit) as { id: number; lease_owner: string | null; lease_until: number | null }[];
    const claim = this.db.prepare(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE id = ? AND state = 'pending' AND (lease_until IS NULL OR lease_until < ?)`,
    );
    const select = this.db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
    const claimed: Delivery[] = [];
    for (const { id, lease_owner, lease_until } of candidates) {
      if (claim.run(owner, now + leaseMs, id, now).changes !== 1) continue;
      const d = toDelivery(select.get(id) as Row);
      // A lease still set: its attempt never recorded an outcome (recordAttempt releases it).
      if (lease_owner !== null && lease_until !== null) d.interrupted_at = lease_until - leaseMs;
      claimed.push(d);
    }
    return claimed;
  }

  async recordAttempt(id: number, attempt: DeliveryAttempt | DeliveryAttempt[], next: { state: DeliveryState; next_attempt_at: number | null }): Promise<void> {
    const list = Array.isArray(attempt) ? attempt : [attempt];
    const appended = list.reduce((sql) => `json_insert(${sql}, '$[#]', json(?))`, 'attempts');
    this.db
      .prepare(`UPDATE webhook_deliveries SET attempts = ${appended}, state = ?, next_attempt_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ?`)
      .run(...list.map((a) => JSON.stringify(a)), next.state, next.next_attempt_at, id);
  }

  async listFor(subjectType: string, subjectId: string): Promise<Delivery[]> {
    return (this.db.prepare('SELECT * FROM webhook_deliveries WHERE subject_type = ? AND subject_id = ? ORDER BY id').all(subjectType, subjectId) as Row[]).map(toDelivery);
  }

  async subscribe(subjectType: string, subjectId: string, spec: WebhookSpec): Promise<void> {
    this.db.prepare('INSERT OR REPLACE INTO webhook_subscriptions (subject_type, subject_id, spec) VALUES (?, ?, ?)').run(subjectType, subjectId, JSON.stringify(spec));
  }

  async subscription(subjectType: string, subjectId: string): Promise<WebhookSpec | undefined> {
    const row = this.db.prepare('SELECT spec FROM webhook_subscriptions WHERE subject_type = ? AND subject_id = ?').get(subjectType, subjectId) as { spec: string } | undefined;
    return row ? (JSON.parse(row.spec) as WebhookSpec) : undefined;
  }

  async nextDueAt(): Promise<number | null> {
    const row = this.db.prepare(`SELECT MIN(next_attempt_at) AS t FROM webhook_deliveries WHERE state = 'pending'`).get() as { t: number | null };
    return row.t;
  }
}
