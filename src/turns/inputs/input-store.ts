/**
 * TurnInputStore: the durable queue of steering messages of each turn — messages a client (or
 * another service) sent into a turn that is queued, running or waiting. Each message gets the next
 * `seq` of its turn (1, 2, 3…) when stored; the runner applies messages in `seq` order at a round
 * boundary and then marks them applied. Which messages the transcript already holds is decided by
 * the turn's checkpoint (its input cursor), not by `applied_at`: the mark only records that the
 * `input.applied` event was stored, so a crash between the two repeats the event, never the message.
 *
 * Implementations: SQLite (src/store/sqlite-turn-input-store.ts), Postgres
 * (src/store/postgres/pg-turn-input-store.ts). Contract: test/store/contracts/turn-inputs.contract.ts.
 */

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

export interface TurnInputStore {
  /** Store a message as the next of its turn; resolves with it (its `seq` set). Two concurrent adds get different seqs. */
  add(input: NewTurnInput): Promise<StoredTurnInput>;
  /** Messages of `turnId` with `seq > afterSeq`, in seq order. */
  listAfter(turnId: string, afterSeq: number): Promise<StoredTurnInput[]>;
  /**
   * Set `applied_at = at` on every message of `turnId` with `seq <= uptoSeq` not marked yet, and
   * return exactly those (seq order). A message is returned by one call only, also when two race.
   */
  markApplied(turnId: string, uptoSeq: number, at: string): Promise<StoredTurnInput[]>;
}
