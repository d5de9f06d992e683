/**
 * SQLite implementation of {@link TurnCheckpointStore}: `turn_items(turn_id, idx, data)` (append
 * only) and `turn_checkpoints(turn_id, version, step, item_count, state)`, written together in one
 * transaction.
 */
import type { Database } from './database.js';
import { isoNow } from './iso-now.js';
import type { StoredCheckpoint, TurnCheckpointStore } from './checkpoint-store.js';
import type { TranscriptItem } from '../model/port.js';

export class SqliteCheckpointStore implements TurnCheckpointStore {
  private readonly saveTx;
  private readonly selectItems;
  private readonly selectCheckpoint;
  private readonly countItems;
  private readonly updateOnly;
  /** Queued (write-behind) saves not yet committed, per turn. */
  private readonly queued = new Map<string, number>();

  /**
   * @param batch the turn event log on the same database: with it, {@link saveQueued} commits
   *   checkpoints in that log's batches (one commit with the events around them).
   */
  constructor(db: Database, private readonly batch?: { joinBatch(write: () => void, options?: { atomic?: boolean }): Promise<void>; flush(): void }) {
    db.exec(`CREATE TABLE IF NOT EXISTS turn_items (
      turn_id TEXT NOT NULL,
      idx INTEGER NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (turn_id, idx)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS turn_checkpoints (
      turn_id TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      step INTEGER NOT NULL,
      item_count INTEGER NOT NULL,
      state TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) WITHOUT ROWID`);
    const insertItem = db.prepare('INSERT INTO turn_items (turn_id, idx, data) VALUES (?, ?, ?)');
    const upsert = db.prepare(
      `INSERT INTO turn_checkpoints (turn_id, version, step, item_count, state, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (turn_id) DO UPDATE SET version = excluded.version, step = excluded.step,
         item_count = excluded.item_count, state = excluded.state, updated_at = excluded.updated_at`,
    );
    this.countItems = db.prepare('SELECT COUNT(*) AS n FROM turn_items WHERE turn_id = ?').pluck();
    // Items are only ever stored together with the checkpoint row, so its item_count is the number
    // stored — read in O(1) (a COUNT over the turn's items would grow with the turn).
    const storedCount = db.prepare('SELECT item_count FROM turn_checkpoints WHERE turn_id = ?').pluck();
    this.saveTx = db.transaction((turnId: string, c: StoredCheckpoint, items: readonly TranscriptItem[]) => {
      const from = c.itemCount - items.length;
      const have = (storedCount.get(turnId) as number | undefined) ?? 0;
      if (from !== have) throw new Error(`checkpoint of turn ${turnId} expects ${from} stored items, found ${have}`);
      items.forEach((item, i) => insertItem.run(turnId, from + i, JSON.stringify(item)));
      upsert.run(turnId, c.version, c.step, c.itemCount, c.state, isoNow());
    });
    // The common mid-round case — no new items — is one statement (atomic on its own).
    this.updateOnly = db.prepare(
      'UPDATE turn_checkpoints SET version = ?, step = ?, state = ?, updated_at = ? WHERE turn_id = ? AND item_count = ?',
    );
    this.selectItems = db.prepare('SELECT data FROM turn_items WHERE turn_id = ? AND idx < ? ORDER BY idx').pluck();
    this.selectCheckpoint = db.prepare('SELECT version, step, item_count AS itemCount, state FROM turn_checkpoints WHERE turn_id = ?');
  }

  async save(turnId: string, checkpoint: StoredCheckpoint, newItems: readonly TranscriptItem[]): Promise<void> {
    this.batch?.flush(); // what was queued comes first
    this.write(turnId, checkpoint, newItems, 'own');
  }

  /**
   * The common mid-round case — no new items — is one UPDATE; otherwise items and checkpoint in
   * one transaction: its own (`BEGIN IMMEDIATE`), or a savepoint inside a batch's transaction.
   */
  private write(turnId: string, c: StoredCheckpoint, items: readonly TranscriptItem[], tx: 'own' | 'nested'): void {
    if (items.length === 0 && this.updateOnly.run(c.version, c.step, c.state, isoNow(), turnId, c.itemCount).changes === 1) return;
    if (tx === 'own') this.saveTx.immediate(turnId, c, items);
    else this.saveTx(turnId, c, items);
  }

  /** See {@link TurnCheckpointStore.saveQueued}; without a batch log it is `save`. */
  saveQueued(turnId: string, checkpoint: StoredCheckpoint, newItems: readonly TranscriptItem[]): Promise<void> {
    if (!this.batch) return this.save(turnId, checkpoint, newItems);
    const items = [...newItems];
    this.queued.set(turnId, (this.queued.get(turnId) ?? 0) + 1);
    const settled = () => {
      const n = (this.queued.get(turnId) ?? 1) - 1;
      if (n > 0) this.queued.set(turnId, n);
      else this.queued.delete(turnId);
    };
    // Atomic by itself: one UPDATE, or items and checkpoint in saveTx's own savepoint.
    const stored = this.batch.joinBatch(() => this.write(turnId, checkpoint, items, 'nested'), { atomic: true });
    stored.then(settled, settled);
    return stored;
  }

  /** Reads see this turn's queued checkpoints: those are written first (not needed for other turns). */
  private settle(turnId: string): void {
    if (this.queued.has(turnId)) this.batch?.flush();
  }

  async load(turnId: string): Promise<StoredCheckpoint | undefined> {
    this.settle(turnId);
    return this.selectCheckpoint.get(turnId) as StoredCheckpoint | undefined;
  }

  async items(turnId: string, count = Number.MAX_SAFE_INTEGER): Promise<TranscriptItem[]> {
    this.settle(turnId);
    return (this.selectItems.all(turnId, count) as string[]).map((d) => JSON.parse(d) as TranscriptItem);
  }

  async itemCount(turnId: string): Promise<number> {
    this.settle(turnId);
    return this.countItems.get(turnId) as number;
  }
}
