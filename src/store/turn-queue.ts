/**
 * TurnQueue: which runner advances which turn. A turn is enqueued when it is inserted (status
 * `queued`) or put back with {@link TurnQueue.enqueue}; a runner {@link TurnQueue.claim}s the oldest
 * claimable turn atomically, becoming its owner until its lease expires. Owners renew the lease
 * (heartbeat) and either finish the turn or release it.
 *
 * Claimable: `queued` turns, and `running` turns whose lease expired (their owner died or lost
 * them) — those are resumed from their last checkpoint. `waiting` turns (paused at a checkpoint,
 * e.g. for an approval) are not claimable until enqueued again. Order: oldest turn id first
 * (UUIDv7, so creation order).
 *
 * Implementations: SQLite (src/store/sqlite-turn-queue.ts, a conditional UPDATE like the
 * scheduler's claims); a networked engine uses `FOR UPDATE SKIP LOCKED`. Contract:
 * test/store/turn-queue.contract.ts. All times are ms since the epoch from the caller's clock.
 */

/** A claimed turn. */
export interface ClaimedTurn {
  id: string;
  /**
   * How the previous run of this turn ended: `none` (first run), `released` (its owner let it go,
   * e.g. a graceful shutdown) or `lost` (its lease ran out: the owner crashed or stalled).
   */
  previousRun: 'none' | 'released' | 'lost';
  /**
   * The claim epoch (`turns.lease_epoch`, src/store/lease-fence.ts) on an engine shared by several
   * instances: the same as before when `owner` took back its own lease that ran out with nobody
   * else claiming it, higher whenever the turn passed to another holder. Absent on SQLite.
   */
  epoch?: number;
}

export interface TurnQueue {
  /** Make a `waiting` (or `queued`) turn claimable again. False when the turn is in another status. */
  enqueue(id: string): Promise<boolean>;
  /**
   * Claim the oldest claimable turn for `owner` until `now + leaseMs` (status becomes `running`,
   * `started_at` set on the first claim). Undefined when there is none. Two concurrent claims
   * never get the same turn.
   */
  claim(owner: string, now: number, leaseMs: number): Promise<ClaimedTurn | undefined>;
  /**
   * Extend `owner`'s lease of each of `ids` to `now + leaseMs`, in one statement (an instance
   * renews every turn it runs in one heartbeat, not one commit or round trip per turn). The result
   * holds an entry for each turn `owner` still holds, with `cancelRequested` true when a cancel was
   * stored for it; a missing id was lost (its owner must stop advancing it).
   */
  renewMany(ids: readonly string[], owner: string, now: number, leaseMs: number): Promise<Map<string, { cancelRequested: boolean }>>;
  /** The owner is done with a turn whose record is finished: drop the lease. */
  finish(id: string, owner: string): Promise<void>;
  /** Give the turn up without finishing it (claimable again at once, resumed from its checkpoint). */
  release(id: string, owner: string): Promise<void>;
  /**
   * Give a running turn owned by `owner` back as `queued`, claimable again from `until` (ms epoch)
   * on — a turn that cannot start yet (its `previous_turn_id` is still running); `started_at` is
   * cleared (it has not started). False when `owner` does not hold it.
   */
  defer(id: string, owner: string, until: number): Promise<boolean>;
  /** Put a running turn owned by `owner` into `waiting` (a pause at a checkpoint). */
  wait(id: string, owner: string): Promise<boolean>;
  /**
   * Called once when an instance starts. An engine where one process owns the data (SQLite in
   * DATA_DIR) marks every lease of a previous process as lost, so its turns resume at once; a
   * shared engine does nothing (leases of dead instances expire on their own).
   */
  recoverOrphans(now: number): Promise<number>;
}
