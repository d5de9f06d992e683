/**
 * TurnStore: persistence of turn records, their requests (so queued turns survive a restart),
 * idempotency keys, stored cancel requests and workflow task bindings. Every method returns a
 * Promise so a networked database can implement it; the SQLite implementation is
 * src/store/sqlite-turn-store.ts and the contract every engine must meet is
 * test/store/turn-store.contract.ts.
 *
 * Companion ports: the {@link TurnQueue} (claiming, leases — src/store/turn-queue.ts) and the
 * {@link TurnCheckpointStore} (turn state and append-only transcript items —
 * src/store/checkpoint-store.ts) work on the same turns.
 */
import type { LeaseFence } from './lease-fence.js';
import type { TranscriptItem } from '../model/port.js';
import type { TurnTrace } from '../telemetry/trace-context.js';
import type { StoredTaskBinding, TurnKind, TurnOrigin, TurnRecordStatus } from '../turns/turn-kinds.js';
import type { CreateTurnInput, TurnRecord } from '../turns/turn-service-types.js';

/** A turn as first stored (status `queued`: inserting a turn enqueues it). */
export interface NewTurn {
  id: string;
  agent_id: string;
  kind: TurnKind;
  origin: TurnOrigin;
  model: string;
  created_at: string;
  metadata: Record<string, unknown> | null;
  /** The validated request, replayed when the turn runs (also after a restart). */
  request: CreateTurnInput;
  idempotency_key: string | null;
  /** sha256 hashes of the canonical request (src/turns/turn-input.ts idempotencyHashes), space-separated; same key + no common hash → 409. */
  request_hash: string | null;
  /** Workflow task turns only: the data the live binding is rebuilt from. */
  binding?: StoredTaskBinding | null;
  /** The turn's trace (src/telemetry/trace-context.ts); absent → `trace_id` null. */
  trace?: TurnTrace;
}

/** Everything stored when a turn ends. */
export interface TurnOutcome {
  status: Extract<TurnRecordStatus, 'completed' | 'failed' | 'cancelled'>;
  completed_at: string;
  output_text: string | null;
  stop_reason: string | null;
  steps: number;
  /** null: unknown (a model response came without usage). */
  usage: { input_tokens: number; output_tokens: number } | null;
  error: { code: string; message: string } | null;
  /**
   * Legacy: a full transcript to store with the record. New code stores transcripts as
   * checkpoint items ({@link TurnCheckpointStore}); omit or pass null.
   */
  transcript?: TranscriptItem[] | null;
}

export interface ListTurnsQuery {
  agent_id?: string;
  status?: TurnRecordStatus;
  /** Max rows, 1..100. */
  limit: number;
  /** Return turns with id < before (ids are UUIDv7, so this is "older than"). */
  before?: string;
}

export interface TurnStore {
  /** Store a new turn as `queued`. Rejects when the id or idempotency key exists. */
  insert(turn: NewTurn): Promise<void>;
  get(id: string): Promise<TurnRecord | undefined>;
  /** The stored request of a turn. */
  getRequest(id: string): Promise<CreateTurnInput | undefined>;
  /** The stored trace of a turn: null when it has none, undefined when the turn does not exist. */
  getTrace(id: string): Promise<TurnTrace | null | undefined>;
  /** The workflow task binding stored with the turn (null when it has none). */
  getBinding(id: string): Promise<StoredTaskBinding | null | undefined>;
  /** The legacy transcript column (turns finished before checkpoints existed); null otherwise. */
  getLegacyTranscript(id: string): Promise<TranscriptItem[] | null | undefined>;
  findByIdempotencyKey(key: string): Promise<{ id: string; request_hash: string | null } | undefined>;
  /**
   * Store the outcome. Only a turn not finished yet changes; returns false otherwise.
   * With `fence` (the finishing run's lease, src/store/lease-fence.ts) a shared engine changes it
   * only while that lease is held, else rejects with `LeaseLostError`; SQLite ignores it.
   */
  finish(id: string, outcome: TurnOutcome, fence?: LeaseFence): Promise<boolean>;
  /**
   * {@link finish}, written in the transaction of the turn's next event (engines whose store and
   * log share one database): the event appended right after, in the same synchronous step
   * (`appendQueued` on SQLite, `append` on Postgres), is committed in the same transaction — so a
   * turn's finished record and its terminal event are stored together or not at all (no crash
   * between them), and the event is streamed only once the record says finished. Absent: use
   * `finish`, then append. `fence` as for {@link finish}.
   */
  finishInBatch?(id: string, outcome: TurnOutcome, fence?: LeaseFence): Promise<boolean>;
  /** Finish a turn only while it is still `queued` (cancel before it ran). True when it was. */
  finishQueued(id: string, outcome: TurnOutcome): Promise<boolean>;
  /**
   * Record live progress shown by GET (steps, usage) while the turn runs. With `fence` a shared
   * engine writes it only while that lease is held (else: no effect).
   */
  updateProgress(id: string, p: { steps: number; usage: { input_tokens: number; output_tokens: number } | null }, fence?: LeaseFence): Promise<void>;
  /**
   * Store a cancel request (`cancel_requested_at`, ISO 8601) on a turn that has not finished;
   * the owning runner sees it at its next heartbeat. Returns false for a finished/unknown turn.
   */
  requestCancel(id: string, at: string): Promise<boolean>;
  /** When a cancel was requested (null: never). */
  cancelRequestedAt(id: string): Promise<string | null | undefined>;
  /** Newest first. */
  list(query: ListTurnsQuery): Promise<TurnRecord[]>;
  /** Ids of the turns of `agentId` whose request continues turn `id` (`previous_turn_id`), newest first. */
  continuations(id: string, agentId: string): Promise<string[]>;
  /** Ids with one of these statuses, oldest first. */
  idsWithStatus(statuses: TurnRecordStatus[]): Promise<string[]>;
}
