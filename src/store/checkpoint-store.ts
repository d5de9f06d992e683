/**
 * TurnCheckpointStore: a turn's durable progress — its transcript as append-only items and its
 * last checkpoint (the serialized turn state without the transcript). Saving a checkpoint appends
 * only the items added since the previous one, so the cost per round stays flat however long the
 * turn grows. Implementations: SQLite (src/store/sqlite-checkpoint-store.ts). Contract:
 * test/store/checkpoint-store.contract.ts.
 */
import type { LeaseFence } from './lease-fence.js';
import type { TranscriptItem } from '../model/port.js';

/** One checkpoint as stored. */
export interface StoredCheckpoint {
  /** The state's `$schemaVersion` (readers refuse versions they do not know). */
  version: number;
  /** Model requests made when it was taken. */
  step: number;
  /** Transcript items stored with (and before) this checkpoint. */
  itemCount: number;
  /** The serialized state (JSON text, without the transcript). */
  state: string;
}

export interface TurnCheckpointStore {
  /**
   * Atomically append `newItems` at positions `checkpoint.itemCount - newItems.length …` and
   * replace the turn's checkpoint. Either both are stored or neither.
   * @throws when the positions do not continue the stored items (a lost or stale writer).
   * @param fence the writing run's lease (src/store/lease-fence.ts): a shared engine stores only
   *   while it is held, else rejects with `LeaseLostError`; SQLite ignores it.
   */
  save(turnId: string, checkpoint: StoredCheckpoint, newItems: readonly TranscriptItem[], fence?: LeaseFence): Promise<void>;
  /**
   * Optional write-behind `save` (same contract): the checkpoint is queued at once and committed
   * with the next batch of the turn event log on the same database, together with the events
   * around it (SQLite). The promise settles when it is durable; a writer that need not wait goes
   * on without awaiting it. Reads of this store store what is queued first.
   */
  saveQueued?(turnId: string, checkpoint: StoredCheckpoint, newItems: readonly TranscriptItem[]): Promise<void>;
  /** The last checkpoint, or undefined when none was stored. */
  load(turnId: string): Promise<StoredCheckpoint | undefined>;
  /**
   * The first `count` (default: all) stored transcript items, in order.
   * @throws when a stored item cannot be read (corrupt).
   */
  items(turnId: string, count?: number): Promise<TranscriptItem[]>;
  /** Number of stored items (0 when none). */
  itemCount(turnId: string): Promise<number>;
}
