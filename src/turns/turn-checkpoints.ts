/**
 * Checkpointing of one running turn: the bridge between the loop's `checkpoint` hook and the
 * {@link TurnCheckpointStore}. Each save appends only the transcript items added since the last
 * save (flat cost per round) and replaces the stored state.
 *
 * Order within a round, and why a crash anywhere is safe:
 * 1. events are STORED as they happen (deltas, tool.started before a call runs, tool.completed
 *    after it) — each event is in the log before the loop goes on;
 * 2. the CHECKPOINT is stored after the model response (before any of its calls runs) and after
 *    the round (its items appended) — except after a round the event log alone rebuilds (its
 *    calls all succeeded with text outputs, nothing else changed: `run_again` `rebuildable`,
 *    src/runtime/round-dispatch.ts), whose items the next checkpoint appends.
 * A crash between 1 and 2 leaves events newer than the checkpoint. On resume the pending round's
 * calls are reconciled from those events (a stored tool.completed is taken as the call's outcome,
 * not run or emitted again; a started non-read-only call is reported interrupted), and a response
 * whose checkpoint was not stored is simply requested again — its partial events stay in the log,
 * followed by `turn.resumed`. Nothing is lost and no completed round or side effect repeats.
 */
import type { TranscriptItem } from '../model/port.js';
import type { NextStep } from '../runtime/round-types.js';
import { serializeTurnState, TURN_STATE_VERSION, type TurnState } from '../runtime/turn-state.js';
import type { TurnCheckpointStore } from '../store/checkpoint-store.js';
import type { LeaseFence } from '../store/lease-fence.js';

export class TurnCheckpointer {
  constructor(
    private readonly store: TurnCheckpointStore,
    private readonly turnId: string,
    /** Items already stored for this turn. */
    private storedItems: number,
    /** The run's lease (Postgres): a save is stored only while it is held (src/store/lease-fence.ts). */
    private readonly fence?: LeaseFence,
  ) {}

  /** True after a save failed: the stored item count is read again before the next. */
  private resync = false;

  /**
   * Store `state` (with `ended` when the turn is over). With a store that has `saveQueued`
   * (SQLite) the checkpoint is write-behind: it is committed with the turn's events of the same
   * event-loop turn — before any tool of the round runs (`tool.started` is waited for), before
   * the turn's record is finished — and this resolves once it is queued.
   * After a failed save the next one first reads the stored item count again: a save whose
   * commit went through but whose answer was lost (the connection dropped) did store its items,
   * and the next save must continue after them, not repeat them.
   * @throws (without `saveQueued`) what the store throws.
   */
  async save(state: TurnState, next?: NextStep): Promise<void> {
    // A pause (`waiting`) is not an ending: the turn resumes from this state.
    const s: TurnState = next && next.type !== 'run_again' && next.type !== 'waiting' ? { ...state, ended: next } : state;
    if (this.resync) {
      this.storedItems = await this.store.itemCount(this.turnId);
      this.resync = false;
    }
    const newItems: TranscriptItem[] = state.transcript.slice(this.storedItems);
    const checkpoint = { version: TURN_STATE_VERSION, step: state.steps, itemCount: state.transcript.length, state: serializeTurnState(s) };
    if (this.store.saveQueued) {
      this.store.saveQueued(this.turnId, checkpoint, newItems).catch(() => (this.resync = true));
      this.storedItems = state.transcript.length;
      return;
    }
    try {
      await this.store.save(this.turnId, checkpoint, newItems, this.fence);
    } catch (err) {
      this.resync = true;
      throw err;
    }
    this.storedItems = state.transcript.length;
  }
}
