/**
 * TurnStore: persistence of turn records, their requests (so queued turns survive a restart),
 * idempotency keys and transcripts (for `previous_turn_id`). Synchronous because
 * `TurnService.get` is; a Postgres implementation would keep a write-through cache.
 */
import type { TurnKind, TurnOrigin } from '../assembly/context.js';
import type { TranscriptItem } from '../runtime/turn-types.js';
import type { TurnTrace } from '../telemetry/trace-context.js';
import type { CreateTurnInput, TurnRecord, TurnRecordStatus } from '../turns/turn-service-types.js';

/** A turn as first stored (status `queued`). */
export interface NewTurn {
  id: string;
  agent_id: string;
  kind: TurnKind;
  origin: TurnOrigin;
  model: string;
  created_at: string;
  metadata: Record<string, unknown> | null;
  /** The validated request, replayed when a queued turn is resumed after a restart. */
  request: CreateTurnInput;
  idempotency_key: string | null;
  /** sha256 of the canonical request body; same key + different hash → 409. */
  request_hash: string | null;
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
  usage: { input_tokens: number; output_tokens: number };
  error: { code: string; message: string } | null;
  /** Full transcript, or null when the turn never ran. */
  transcript: TranscriptItem[] | null;
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
  insert(turn: NewTurn): void;
  get(id: string): TurnRecord | undefined;
  /** The stored request of a turn. */
  getRequest(id: string): CreateTurnInput | undefined;
  /** The stored transcript of a finished turn (null when it never ran). */
  getTranscript(id: string): TranscriptItem[] | null | undefined;
  /** The stored trace of a turn: null when it has none, undefined when the turn does not exist. */
  getTrace(id: string): TurnTrace | null | undefined;
  findByIdempotencyKey(key: string): { id: string; request_hash: string | null } | undefined;
  markRunning(id: string, startedAt: string): void;
  finish(id: string, outcome: TurnOutcome): void;
  /** Newest first. */
  list(query: ListTurnsQuery): TurnRecord[];
  /** Ids with one of these statuses, oldest first. */
  idsWithStatus(statuses: TurnRecordStatus[]): string[];
}
