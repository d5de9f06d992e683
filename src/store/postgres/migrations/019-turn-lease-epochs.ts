/**
 * The claim epoch of a turn's lease (src/store/lease-fence.ts): raised by every claim that hands
 * the turn to another holder, so a write of a run that lost the lease — delivered late by a hung
 * connection — is refused even when the turn is held (or finished) by someone else by then.
 */
import type { Migration } from '../migrate.js';

export const turnLeaseEpochs: Migration = {
  version: 19,
  name: 'turn_lease_epochs',
  sql: `ALTER TABLE turns ADD COLUMN lease_epoch BIGINT NOT NULL DEFAULT 0;`,
};
