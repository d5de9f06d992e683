/**
 * Webhook deliveries (one row per message and target URL, attempts as JSON text, times in ms
 * since the epoch, a lease per claim) and the webhooks remembered for subjects without a request
 * record (workflows). Same columns as the SQLite store (src/webhooks/store.ts).
 */
import type { Migration } from '../migrate.js';

export const webhooks: Migration = {
  version: 10,
  name: 'webhooks',
  sql: `
    CREATE TABLE webhook_deliveries (
      id BIGSERIAL PRIMARY KEY,
      message_id TEXT NOT NULL,
      subject_type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      url TEXT NOT NULL,
      payload TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      state TEXT NOT NULL DEFAULT 'pending',
      attempts TEXT NOT NULL DEFAULT '[]',
      next_attempt_at BIGINT,
      lease_owner TEXT,
      lease_until BIGINT,
      UNIQUE (message_id, url)
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
    CREATE INDEX webhook_deliveries_subject ON webhook_deliveries (subject_type, subject_id, id);
    CREATE TABLE webhook_subscriptions (
      subject_type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      spec TEXT NOT NULL,
      PRIMARY KEY (subject_type, subject_id)
    );`,
};
