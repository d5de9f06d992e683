/**
 * TurnState: everything needed to continue a turn, as plain JSON with a `$schemaVersion`, so a
 * turn can be checkpointed after each round and resumed by any runner after a crash.
 *
 * The transcript is part of the state in memory but is stored separately, append-only
 * ({@link serializeTurnState} leaves it out; the checkpoint store keeps the items). A round in
 * progress (`round`: a completed model response whose calls are being dispatched) is kept in the
 * state itself, not in the transcript, until the round ends — so stored transcripts never hold a
 * function_call without its output.
 */
import type { TranscriptItem } from '../model/port.js';
import type { CircuitBreakerSnapshot } from './circuit-breaker.js';
import type { Usage } from './events.js';
import type { NextStep } from './next-step.js';
import type { RepeatStreak } from './policies/repeated-call.js';

/** Counts over every function call of a turn. */
export interface ToolCallStats {
  /** Function calls answered (including errors and calls not started). */
  calls: number;
  /** Calls whose output was an error. */
  errors: number;
  /** Repair step name (`code_fence`, `close_truncated`, …) → calls it repaired. */
  repairs: Record<string, number>;
}

/** The current schema version of {@link TurnState}. */
export const TURN_STATE_VERSION = 1;

/** A model response whose calls are being dispatched (checkpointed before any call runs). */
export interface PendingRound {
  /** The response's items (appended to the transcript, with the outputs, when the round ends). */
  items: TranscriptItem[];
  /** Event seq stored last before the round's calls started (outcomes after it are in the log). */
  afterSeq: number;
  /** The response's id (continuation of stored provider conversations). */
  responseId?: string;
}

export interface TurnState {
  $schemaVersion: typeof TURN_STATE_VERSION;
  /** Prior transcript + this turn's items so far (completed rounds only). */
  transcript: TranscriptItem[];
  /**
   * Model requests made: every round's request (with calls, the answer, the one without tools
   * after max_steps, a cut answer's retry, an empty answer's nudge); transport retries of one
   * request are not counted. Not bounded by max_steps (README "Turn endings").
   */
  steps: number;
  /** Rounds whose response had function calls, plus answers a steering message continued (each counts against max_steps). */
  toolRounds: number;
  /** Summed over the turn's responses; null once a response came without usage (unknown). */
  usage: Usage | null;
  toolStats: ToolCallStats;
  /** Deferred tools loaded by tool search (identities). */
  loaded: string[];
  /** Offer/allow only these tool identities (a final-answer guard's restriction). */
  onlyTools?: string[];
  /** After max steps: the last request is made with `tool_choice: "none"`. */
  toolsDisabled: boolean;
  usedTools: boolean;
  /** The empty-response nudge was sent. */
  nudged: boolean;
  /** A response cut by max_output_tokens was retried. */
  cutRetried: boolean;
  /** The tool-call-markup-as-text nudge was sent. */
  markupNudged?: boolean;
  /** The current run of identical calls (src/runtime/policies/repeated-call.ts). */
  repeatStreak?: RepeatStreak;
  /** Final-answer guard progress. */
  guard: { calls: number; done: boolean };
  lastResponseId?: string;
  /** Transcript items covered by `lastResponseId` (for adapters that continue stored conversations). */
  coveredItems: number;
  /** Last assistant text (the turn's output so far). */
  lastText: string;
  breaker: CircuitBreakerSnapshot;
  round?: PendingRound;
  /**
   * Highest seq of the turn's steering messages already in `transcript` (src/turns/inputs/); unset
   * = none. Checkpointed with the messages, so each is applied exactly once.
   */
  inputCursor?: number;
  /** Crashes that cut the same step (crash-loop detection). */
  crashes?: { step: number; count: number };
  /**
   * Set in the final checkpoint (stored before the terminal event): how the turn ended. A turn
   * resumed with it only emits its terminal event again.
   */
  ended?: Exclude<NextStep, { type: 'run_again' }>;
}

/** A fresh state for a turn whose transcript starts with `input`. */
export function initialTurnState(input: TranscriptItem[]): TurnState {
  return {
    $schemaVersion: TURN_STATE_VERSION,
    transcript: [...input],
    steps: 0,
    toolRounds: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    toolStats: { calls: 0, errors: 0, repairs: {} },
    loaded: [],
    toolsDisabled: false,
    usedTools: false,
    nudged: false,
    cutRetried: false,
    guard: { calls: 0, done: false },
    coveredItems: 0,
    lastText: '',
    breaker: { failures: [], refused: [] },
  };
}

/** Thrown when a stored state cannot be used (corrupt JSON, unknown version, wrong shape). */
export class UnreadableStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableStateError';
  }
}

/** The state without its transcript, as JSON text. */
export function serializeTurnState(state: TurnState): string {
  const { transcript: _transcript, ...rest } = state;
  return JSON.stringify(rest);
}

/**
 * Rebuild a state from {@link serializeTurnState} text and its stored transcript.
 * @throws UnreadableStateError for corrupt JSON, an unknown `$schemaVersion` or a missing field.
 */
export function parseTurnState(text: string, transcript: TranscriptItem[]): TurnState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UnreadableStateError(`the checkpoint is not valid JSON (${(err as Error).message})`);
  }
  const o = raw as Partial<TurnState> | null;
  if (!o || typeof o !== 'object') throw new UnreadableStateError('the checkpoint is not a JSON object');
  if (o.$schemaVersion !== TURN_STATE_VERSION) {
    throw new UnreadableStateError(`the checkpoint has schema version ${String(o.$schemaVersion)}; this service reads version ${TURN_STATE_VERSION}`);
  }
  for (const key of ['steps', 'toolRounds', 'usage', 'toolStats', 'loaded', 'guard', 'coveredItems', 'lastText', 'breaker'] as const) {
    if (o[key] === undefined) throw new UnreadableStateError(`the checkpoint has no \`${key}\``);
  }
  return { ...(o as Omit<TurnState, 'transcript'>), transcript };
}
