/**
 * The runtime's public surface for running one turn: what the turn service (src/turns/) passes to
 * `runTurn` (src/runtime/loop.ts) and what it gets back. No HTTP, no storage in here.
 */
import type { ModelPort, TranscriptItem } from '../model/port.js';
import type { TurnEvent, Usage } from './events.js';
import type { NextStep, PriorCall } from './next-step.js';
import type { ApprovalGate } from './approval-gate.js';
import type { AnyWorkerAgentTool } from './tool.js';
import type { ToolCallStats, TurnState } from './turn-state.js';

export type { ToolCallStats };

/** One neutral transcript item (message, function_call, function_call_output, reasoning…); src/model/port.ts. */
export type { TranscriptItem };

/** How deferred (`deferLoading`) tools are exposed: `client` = the service's own `tool_search` function, `hosted` = the Responses API's hosted tool search. */
export type ToolSearchMode = 'client' | 'hosted';

/** Runtime knobs, usually from config. All optional; defaults in brackets. */
export interface RuntimeOptions {
  /** Max parallel tool calls running at once within a round [4]. */
  parallelLimit?: number;
  /** Default per-tool timeout, ms [120000]; a tool's own `timeoutMs` wins. */
  toolTimeoutMs?: number;
  /** Deferred tool exposure [client]. */
  toolSearchMode?: ToolSearchMode;
  /** Max output tokens per model request (unset: provider default). */
  maxOutputTokens?: number;
  /**
   * Max function calls executed per model response [64]; calls beyond it are not run and get an
   * `Error:` function_call_output asking the model to split the work.
   */
  maxToolCallsPerResponse?: number;
  /**
   * Output budget of one tool call, characters [50000] (TOOL_OUTPUT_MAX_CHARS): given to each tool
   * as `ctx.outputMaxChars`; a longer text output is cut by the dispatcher with a marker.
   */
  toolOutputMaxChars?: number;
}

/**
 * Called when the model produced a final answer (a response without function calls). Return null
 * to finish the turn normally, or an instruction to send as a new user/developer message before
 * one more request, optionally restricting the offered tools to `onlyTools` (names). Used by
 * workflow task turns ("submit your result with submit_result"). Called at most once per turn
 * unless it returns `repeatable: true`.
 */
export type FinalAnswerGuard = (info: {
  outputText: string;
  steps: number;
}) => Promise<FinalAnswerGuardVerdict> | FinalAnswerGuardVerdict;

/** What a {@link FinalAnswerGuard} returns: null (accept the answer) or one more instruction. */
export type FinalAnswerGuardVerdict = null | {
  /** Sent as a developer message before one more request. */
  instruction: string;
  /** Offer only these tools (identities: `name` or `namespace.name`) from then on. */
  onlyTools?: string[];
  /** Call the guard again on the next final answer (bounded by maxSteps). */
  repeatable?: boolean;
};

export interface RunTurnOptions<TTurn = unknown> {
  turnId: string;
  model: ModelPort;
  /** Model name sent as `model`. */
  modelName: string;
  /** Sent as `instructions`. */
  instructions?: string;
  /** Prior transcript (from `previous_turn_id`) followed by this turn's new input messages. */
  input: TranscriptItem[];
  /** The assembled tool set, in assembly order (the runtime sorts for the request itself). */
  tools: AnyWorkerAgentTool[];
  /** Families not assembled, echoed in `turn.started`. */
  unavailable?: { family: string; reason: string }[];
  /**
   * Max model requests that may return function calls [20] (rounds with calls, plus answers a
   * steering message continued); then one last request with `tool_choice: "none"` asks for a
   * final answer (stop reason `max_steps`), so `steps` at the limit is `maxSteps + 1`.
   */
  maxSteps?: number;
  /** Aborting it cancels the turn (tools' signals are aborted, the turn ends `cancelled`). */
  signal: AbortSignal;
  /**
   * Receives every event in order. The caller stores it before it is streamed; the runtime awaits
   * it, so a slow store back-pressures the loop. Must not throw.
   */
  emit: (event: TurnEvent) => void | Promise<void>;
  /** Passed to each tool's `execute` as `ctx.turn`. */
  turnContext: TTurn;
  /** Force a tool choice for every request (e.g. 'required'); default 'auto'. */
  toolChoice?: 'auto' | 'required' | 'none';
  finalAnswerGuard?: FinalAnswerGuard;
  options?: RuntimeOptions;
  /**
   * Store the state. Called mid-round (a response with calls, before any call runs), after each
   * round that continues, and with `next` once with the final state before the terminal event.
   * A throw is ignored (the turn goes on in memory).
   */
  checkpoint?: (state: TurnState, next?: NextStep) => Promise<void>;
  /** Continue a stored turn instead of starting (`input` is then ignored). */
  resume?: {
    state: TurnState;
    /** What the event log recorded for the calls of a pending round (by call_id). */
    priorCalls?: ReadonlyMap<string, PriorCall>;
    /** The turn had already ended (final checkpoint stored): only emit its terminal event. */
    ended?: Exclude<NextStep, { type: 'run_again' }>;
  };
  /** Seq of the last stored event (default: events emitted by this call). */
  lastSeq?: () => number;
  /**
   * Called at each round boundary (no round pending) before the model request, and once more when
   * the model answered (stop): returned items (steering messages) are appended to the transcript,
   * `state.inputCursor` is set to `cursor`, the state is checkpointed, then `applied()` is called.
   * Items returned after an answer make the turn go on with one more round (one step against
   * `maxSteps`). A throw is ignored.
   * `at` says which: `round` (before a request) or `answer` (after the model answered: the last
   * chance for a message to make the turn go on, so a hook that skips reads must not skip this one).
   */
  atRoundBoundary?: (state: TurnState, at: 'round' | 'answer') => Promise<BoundaryInput | undefined | void>;
  /**
   * The turn's approval gate (src/runtime/approval-gate.ts): a round with calls waiting for a
   * decision ends the run with status `waiting` (checkpointed; no terminal event).
   */
  approvals?: ApprovalGate;
}

/** What {@link RunTurnOptions.atRoundBoundary} returns when it has something to add. */
export interface BoundaryInput {
  /** Appended to the transcript before the next model request (e.g. user messages). */
  items: TranscriptItem[];
  /** Stored as `state.inputCursor` in the same checkpoint as `items`. */
  cursor: number;
  /** Called after that checkpoint (e.g. to mark the inputs applied and emit events). Must not throw. */
  applied?: () => Promise<void>;
}

/** `waiting`: paused at a checkpoint (no terminal event; resumed later). */
export type TurnStatus = 'completed' | 'failed' | 'cancelled' | 'waiting';

export interface RunTurnResult {
  status: TurnStatus;
  /** Final assistant text ('' when none). */
  outputText: string;
  /** Set when status is completed: `stop`, `max_steps`, `terminated`, `max_output_tokens` (cut text), … (README "Turn endings"). */
  stopReason?: string;
  /** Model requests made. */
  steps: number;
  /** Tokens over the turn; null when a response came without usage (unknown, not zero). */
  usage: Usage | null;
  /** Set when status is failed: provider or runtime error code and message. */
  error?: { code: string; message: string };
  /**
   * Full transcript after the turn (input + every output item + every function_call_output), valid
   * to send back as `input` for a continuation (`previous_turn_id`). Always valid, even on failure.
   */
  transcript: TranscriptItem[];
  /** Last response id (for previous_response_id mode), if any. */
  lastResponseId?: string;
  /** Function-call statistics of the turn (added for logs/metrics; optional for older callers). */
  toolStats?: ToolCallStats;
  /** The final state (absent from results made by other implementations). */
  state?: TurnState;
}
