/**
 * The claim epoch of a workflow's lease (src/store/lease-fence.ts `WorkflowFence`): 1 for a
 * workflow inserted with its creator's lease, raised by every claim that hands the workflow to
 * another driver, so a write of an instance that no longer drives it — delivered late by a hung
 * connection — is refused even when the workflow is driven by someone else by then.
 */
import type { Migration } from '../migrate.js';

export const workflowLeaseEpochs: Migration = {
  version: 20,
  name: 'workflow_lease_epochs',
  sql: `ALTER TABLE workflows ADD COLUMN lease_epoch BIGINT NOT NULL DEFAULT 0;`,
};
