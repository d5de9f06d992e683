/**
 * Webhook deliveries on Postgres (tables of migration 10), shared by every instance: whichever
 * instance's dispatcher finds a delivery due claims it. `claimDue` is one UPDATE over a
 * `FOR UPDATE SKIP LOCKED` selection of due, unleased rows, so two instances never take the same
 * attempt; a crashed instance's lease simply expires. Attempts are appended to the JSON text as
 * text (byte-for-byte what the SQLite store keeps).
 */
import type { WebhookSpec } from '../../webhooks/webhook-spec.js';
import type { Delivery, DeliveryAttempt, DeliveryState, NewDelivery, WebhookStore } from '../../webhooks/store.js';
import type { PgDatabase } from './pg-database.js';

type Row = Omit<Delivery, 'attempts'> & { attempts: string; prev_owner?: string | null; prev_until?: number | null };

const COLUMNS = 'id, message_id, subject_type, subject_id, event_type, url, payload, created_at, state, attempts, next_attempt_at';

function toDelivery({ prev_owner: _o, prev_until: _u, ...r }: Row): Delivery {
  return { ...r, attempts: JSON.parse(r.attempts) as DeliveryAttempt[] };
}

export class PgWebhookStore implements WebhookStore {
  constructor(private readonly db: PgDatabase) {}

  async enqueue(deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const values: unknown[] = [];
    const rows = deliveries.map((d) => {
      values.push(d.message_id, d.subject_type, d.subject_id, d.event_type, d.url, d.payload, d.created_at);
      const n = values.length;
      return `($${n - 6}, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n}, $${n})`;
    });
    await this.db.query(
      `INSERT INTO webhook_deliveries (message_id, subject_type, subject_id, event_type, url, payload, created_at, next_attempt_at)
       VALUES ${rows.join(', ')} ON CONFLICT (message_id, url) DO NOTHING`,
      values,
    );
  }

  async claimDue(now: number, limit: number, owner: string, leaseMs: number): Promise<Delivery[]> {
    // The previous lease comes back too: one still set means that claim's attempt never recorded an outcome.
    const { rows } = await this.db.query<Row>(
      `UPDATE webhook_deliveries w SET lease_owner = $3, lease_until = $4
       FROM (
         SELECT id, lease_owner AS prev_owner, lease_until AS prev_until FROM webhook_deliveries
         WHERE state = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
         ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) c
       WHERE w.id = c.id
       RETURNING ${COLUMNS.split(', ').map((c) => `w.${c}`).join(', ')}, c.prev_owner, c.prev_until`,
      [now, limit, owner, now + leaseMs],
    );
    return rows
      .map((r) => {
        const d = toDelivery(r);
        if (r.prev_owner != null && r.prev_until != null) d.interrupted_at = Number(r.prev_until) - leaseMs;
        return d;
      })
      .sort((a, b) => a.next_attempt_at! - b.next_attempt_at! || a.id - b.id);
  }

  async recordAttempt(id: number, attempt: DeliveryAttempt | DeliveryAttempt[], next: { state: DeliveryState; next_attempt_at: number | null }): Promise<void> {
    const list = Array.isArray(attempt) ? attempt : [attempt];
    await this.db.query(
      `UPDATE webhook_deliveries
       SET attempts = CASE WHEN attempts = '[]' THEN '[' || $2 || ']' ELSE left(attempts, -1) || ',' || $2 || ']' END,
           state = $3, next_attempt_at = $4, lease_owner = NULL, lease_until = NULL
       WHERE id = $1`,
      [id, list.map((a) => JSON.stringify(a)).join(','), next.state, next.next_attempt_at],
    );
  }

  async listFor(subjectType: string, subjectId: string): Promise<Delivery[]> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE subject_type = $1 AND subject_id = $2 ORDER BY id`, [subjectType, subjectId]);
    return rows.map(toDelivery);
  }

  async nextDueAt(): Promise<number | null> {
    const { rows } = await this.db.query<{ t: number | null }>(`SELECT min(next_attempt_at) AS t FROM webhook_deliveries WHERE state = 'pending'`);
    return rows[0]?.t ?? null;
  }

  async subscribe(subjectType: string, subjectId: string, spec: WebhookSpec): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_subscriptions (subject_type, subject_id, spec) VALUES ($1, $2, $3)
       ON CONFLICT (subject_type, subject_id) DO UPDATE SET spec = EXCLUDED.spec`,
      [subjectType, subjectId, JSON.stringify(spec)],
    );
  }

  async subscription(subjectType: string, subjectId: string): Promise<WebhookSpec | undefined> {
    const { rows } = await this.db.query<{ spec: string }>('SELECT spec FROM webhook_subscriptions WHERE subject_type = $1 AND subject_id = $2', [subjectType, subjectId]);
    return rows[0] ? (JSON.parse(rows[0].spec) as WebhookSpec) : undefined;
  }
}
