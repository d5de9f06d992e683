/**
 * TurnInputStore: the durable queue of steering messages of each turn — messages a client (or
 * another service) sent into a turn that is queued, running or waiting. Each message gets the next
 * `seq` of its turn (1, 2, 3…) when stored; the runner applies messages in `seq` order at a round
 * boundary and then marks them applied. Which messages the transcript already holds is decided by
 * the turn's checkpoint (its input cursor), not by `applied_at`: the mark only records that the
 * `input.applied` event was stored, so a crash between the two repeats the event, never the message.
 *
 * A turn that ends closes its queue ({@link TurnInputStore.close}) before its terminal event: from
 * then on `add` refuses, and the close returns the messages the turn will never apply, so every
 * stored message is either applied or reported as not applied (README.md "Steer a running turn").
 *
 * The writes a turn's run makes (closing its queue, marking messages applied, taking over an
 * interrupted turn's messages) carry the run's lease fence (src/store/lease-fence.ts): on Postgres
 * they take effect only while the run still holds its turn, so a run whose connection hung past its
 * lease cannot close the queue of a turn another instance now runs, nor mark applied a message the
 * new holder has yet to apply (its `input.applied` would never be stored).
 *
 * Implementations: SQLite (src/store/sqlite-turn-input-store.ts), Postgres
 * (src/store/postgres/pg-turn-input-store.ts). Contract: test/store/contracts/turn-inputs.contract.ts.
 */
import type { LeaseFence } from '../../store/lease-fence.js';

/** One stored message. Times are ISO 8601. */
export interface StoredTurnInput {
  /** `msg_<uuid>`, unique over all turns. */
  id: string;
  turn_id: string;
  /** 1, 2, 3… per turn, in the order messages were stored. */
  seq: number;
  content: string;
  /** Who sent it: `api` (POST /v1/turns/{id}/messages), `double_text` (POST /v1/turns with multitask_strategy steer), or another service's name. */
  source: string;
  created_at: string;
  /** When its `input.applied` event was stored; null while pending. */
  applied_at: string | null;
}

/** A message to store (the store assigns `seq`). */
export interface NewTurnInput {
  id: string;
  turn_id: string;
  content: string;
  source: string;
  created_at: string;
}

/** What {@link TurnInputStore.close} did. */
export interface InputQueueClose {
  /** True when the queue is closed now (by this call or an earlier one). */
  closed: boolean;
  /** The messages with `seq > afterSeq` not marked applied, in seq order. */
  pending: StoredTurnInput[];
}

export interface TurnInputStore {
  /**
   * Store a message as the next of its turn; resolves with it (its `seq` set), or undefined when
   * the turn's queue is closed (the turn is ending). Two concurrent adds get different seqs; an add
   * and a close of the same turn are atomic with respect to each other (the add is in the close's
   * `pending` or refused).
   */
  add(input: NewTurnInput): Promise<StoredTurnInput | undefined>;
  /**
   * Close `turnId`'s queue for good. With `ifIdle`, only when no message has `seq > afterSeq`;
   * otherwise the queue stays open and those messages are returned (`closed: false`) for the turn
   * to apply. Idempotent: closing a closed queue returns its pending messages again.
   * With `fence` (the closing run's lease, src/store/lease-fence.ts; its turn may be another than
   * `turnId`: a successor taking over an interrupted turn's messages) a shared engine closes only
   * while that lease is held, else rejects with `LeaseLostError` and changes nothing.
   */
  close(turnId: string, afterSeq: number, at: string, opts?: { ifIdle?: boolean; fence?: LeaseFence }): Promise<InputQueueClose>;
  /** Messages of `turnId` with `seq > afterSeq`, in seq order. */
  listAfter(turnId: string, afterSeq: number): Promise<StoredTurnInput[]>;
  /**
   * Set `applied_at = at` on every message of `turnId` with `seq <= uptoSeq` not marked yet, and
   * return exactly those (seq order). A message is returned by one call only, also when two race.
   * `fence` as for {@link close}: refused (`LeaseLostError`, nothing marked) once the lease is lost.
   */
  markApplied(turnId: string, uptoSeq: number, at: string, fence?: LeaseFence): Promise<StoredTurnInput[]>;
}
