/**
 * SQLite implementation of {@link TurnInputStore}: `turn_inputs(id, turn_id, seq, content, source,
 * created_at, applied_at)`, primary key `(turn_id, seq)`. The seq is taken inside the INSERT
 * (`MAX(seq) + 1`), which SQLite runs atomically on its one writer. A closed queue is a row of
 * `turn_input_closures(turn_id, closed_at)`; add and close each run as one transaction. Lease
 * fences are accepted and ignored (one process has DATA_DIR to itself: src/store/lease-fence.ts).
 */
import type { Database } from './database.js';
import type { InputQueueClose, NewTurnInput, StoredTurnInput, TurnInputStore } from '../turns/inputs/input-store.js';

export class SqliteTurnInputStore implements TurnInputStore {
  private readonly insert;
  private readonly selectAfter;
  private readonly markTx;
  private readonly addTx;
  private readonly closeTx;

  constructor(db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS turn_inputs (
      turn_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      id TEXT NOT NULL UNIQUE,
      content TEXT NOT NULL,
      source TEXT NOT NULL,
      created_at TEXT NOT NULL,
      applied_at TEXT,
      PRIMARY KEY (turn_id, seq)
    ) WITHOUT ROWID`);
    db.exec('CREATE TABLE IF NOT EXISTS turn_input_closures (turn_id TEXT PRIMARY KEY, closed_at TEXT NOT NULL) WITHOUT ROWID');
    const isClosed = db.prepare<[string], { n: number }>('SELECT 1 AS n FROM turn_input_closures WHERE turn_id = ?');
    const closeRow = db.prepare('INSERT OR IGNORE INTO turn_input_closures (turn_id, closed_at) VALUES (?, ?)');
    this.insert = db.prepare(
      `INSERT INTO turn_inputs (turn_id, seq, id, content, source, created_at)
       SELECT @turn_id, COALESCE(MAX(seq), 0) + 1, @id, @content, @source, @created_at FROM turn_inputs WHERE turn_id = @turn_id
       RETURNING id, turn_id, seq, content, source, created_at, applied_at`,
    );
    this.selectAfter = db.prepare('SELECT id, turn_id, seq, content, source, created_at, applied_at FROM turn_inputs WHERE turn_id = ? AND seq > ? ORDER BY seq');
    const mark = db.prepare(
      `UPDATE turn_inputs SET applied_at = ? WHERE turn_id = ? AND seq <= ? AND applied_at IS NULL
       RETURNING id, turn_id, seq, content, source, created_at, applied_at`,
    );
    this.addTx = db.transaction((input: NewTurnInput) => (isClosed.get(input.turn_id) ? undefined : (this.insert.get(input) as StoredTurnInput)));
    this.closeTx = db.transaction((turnId: string, afterSeq: number, at: string, ifIdle: boolean): InputQueueClose => {
      const pending = (this.selectAfter.all(turnId, afterSeq) as StoredTurnInput[]).filter((m) => m.applied_at === null);
      const open = !isClosed.get(turnId);
      if (open && ifIdle && pending.length > 0) return { closed: false, pending };
      if (open) closeRow.run(turnId, at);
      return { closed: true, pending };
    });
    this.markTx = db.transaction((turnId: string, upto: number, at: string) =>
      (mark.all(at, turnId, upto) as StoredTurnInput[]).sort((a, b) => a.seq - b.seq),
    );
  }

  async add(input: NewTurnInput): Promise<StoredTurnInput | undefined> {
    return this.addTx.immediate(input);
  }

  async close(turnId: string, afterSeq: number, at: string, opts: { ifIdle?: boolean } = {}): Promise<InputQueueClose> {
    return this.closeTx.immediate(turnId, afterSeq, at, opts.ifIdle === true);
  }

  async listAfter(turnId: string, afterSeq: number): Promise<StoredTurnInput[]> {
    return this.selectAfter.all(turnId, afterSeq) as StoredTurnInput[];
  }

  async markApplied(turnId: string, uptoSeq: number, at: string): Promise<StoredTurnInput[]> {
    return this.markTx.immediate(turnId, uptoSeq, at);
  }
}
