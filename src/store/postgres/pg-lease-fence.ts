/**
 * Lease fences on Postgres (src/store/lease-fence.ts): {@link holdLease} checks, inside a
 * transaction, that the turn's row still shows the run's owner and claim epoch, and locks it
 * (`FOR SHARE`) until the commit — a claim of the turn waits for that commit (or skips the row),
 * and a fenced write that reaches the server after a claim sees the new holder. The event log
 * checks the same in its INSERT (./pg-event-log.ts).
 */
import { leaseLost, type LeaseFence } from '../lease-fence.js';
import type { PgQueryable } from './pg-database.js';

/** The condition on `turns` (alias `t`) that a fence holds; parameters `$owner`, `$epoch` by position. */
export const HOLDS_LEASE = (owner: string, epoch: string) => `t.owner = ${owner} AND t.lease_epoch = ${epoch}`;

/**
 * In transaction `tx`: lock the turn's row while `fence` holds it; else mark the fence lost and
 * reject with `LeaseLostError` (also at once, without a statement, when it is already lost).
 */
export async function holdLease(tx: PgQueryable, fence: LeaseFence): Promise<void> {
  if (fence.lost) throw leaseLost(fence);
  const { rows } = await tx.query(`SELECT 1 FROM turns t WHERE t.id = $1 AND ${HOLDS_LEASE('$2', '$3')} FOR SHARE`, [fence.turnId, fence.owner, fence.epoch]);
  if (rows.length === 0) throw leaseLost(fence);
}
