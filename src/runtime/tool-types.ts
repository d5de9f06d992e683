/**
 * Leaf module: the tool contract's types (see src/runtime/tool.ts for `defineWorkerTool` and the
 * rules). Kept apart so schema compilation can use them without importing the definer.
 */
import type { z } from 'zod';
import type { JsonObject, JsonValue } from './json.js';

/** Text the model sees as (part of) a function_call_output. */
export interface ToolTextContent {
  type: 'text';
  text: string;
}

/** An image the model sees (Responses API `input_image`): a data: URL or https URL. */
export interface ToolImageContent {
  type: 'image';
  /** `data:<mime>;base64,...` or an https URL. */
  url: string;
  /** Optional MIME type when `url` is not a data: URL. */
  mimeType?: string;
}

export type ToolContent = ToolTextContent | ToolImageContent;

/**
 * A client-facing presentation event a tool wants shown (e.g. `plan.snapshot` from todo). It is
 * streamed as a `presentation` TurnEvent `{call_id, event}`; the model never sees it.
 */
export interface PresentationEvent {
  /** Dotted event kind, e.g. `plan.snapshot`. */
  type: string;
  [key: string]: JsonValue | undefined;
}

/** What `execute` returns. */
export interface AgentToolResult<TDetails = unknown> {
  /** What the model sees, in order. Text parts are joined with "\n" for the function_call_output. */
  content: ToolContent[];
  /** Structured data for logs and clients (`tool.completed.details`); never sent to the model. */
  details?: TDetails;
  /** Events for clients (each becomes a `presentation` TurnEvent). */
  presentation?: PresentationEvent[];
  /**
   * End the turn after this round: the remaining calls of the round are not started (each gets
   * the output "Error: a prior tool call already ended this turn") and no further model request
   * is made. `true` ends it with stop reason `terminated`; a {@link TerminateTurn} names the stop
   * reason and may set the turn's output text (e.g. `clarify` with the question).
   */
  terminate?: boolean | TerminateTurn;
}

/** How a tool ends its turn (see {@link AgentToolResult.terminate}). */
export interface TerminateTurn {
  /** The turn's `stop_reason`, e.g. `clarify`. */
  stopReason: string;
  /** The turn's `output_text` (replaces the model's last text); unset keeps the model's text. */
  outputText?: string;
}

/** Progress a running tool reports (streamed as a `tool.progress` TurnEvent). */
export interface ToolProgress {
  /** Short human text, e.g. "downloaded 3 of 5 pages". */
  message: string;
  /** Optional structured data. */
  data?: JsonObject;
}

/**
 * Per-call context given to `execute`.
 * @typeParam TTurn the turn context type (see src/assembly/context.ts `TurnContext`); kept generic
 * so the runtime does not depend on the assembly layer.
 */
export interface ToolExecuteContext<TTurn = unknown> {
  /** The provider's call_id (from `response.output_item.done`). */
  callId: string;
  /**
   * Aborted when the tool times out, or the turn is cancelled. Tools must stop work promptly
   * (kill child processes, abort fetches) when it fires.
   */
  signal: AbortSignal;
  /** The turn this call belongs to. */
  turn: TTurn;
  /** Report progress; never throws. */
  emit: (progress: ToolProgress) => void;
  /**
   * The output budget of this call in characters (TOOL_OUTPUT_MAX_CHARS, default 50 000). A tool
   * fits its text output in it and says how to get the rest (an offset, a saved file); output
   * still longer is cut by the dispatcher with a generic marker.
   */
  outputMaxChars: number;
}

/** How a call ended without a result (for {@link WorkerToolSpec.describeFailedActivity}). */
export interface FailedActivity {
  /** `failed`: execute threw; `timed_out`: the per-call timeout fired; `cancelled`: the turn was cancelled. */
  kind: 'failed' | 'timed_out' | 'cancelled';
  /** The error text the model got (starts with `Error:`). */
  message: string;
}

/** How a tool may run relative to the other calls of the same model response. */
export type ExecutionMode = 'parallel' | 'sequential';

/** Input to {@link defineWorkerTool}. */
export interface WorkerToolSpec<S extends z.ZodType = z.ZodType, TResult extends AgentToolResult = AgentToolResult, TTurn = unknown> {
  /** Function name the model calls: `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  /** What the model reads to decide whether to call it. */
  description: string;
  /** zod 4 object schema; arguments are validated against it before `execute`. */
  schema: S;
  /**
   * Raw JSON Schema sent to the model instead of the zod-derived one, byte-for-byte unchanged
   * (so `minimum`/`maximum` and other constraints survive). `schema` still validates.
   */
  jsonSchema?: JsonObject;
  /** Copied to the provider tool as `strict` (sent explicitly as false when unset). */
  strict?: boolean;
  /** Groups related tools into one provider `namespace` tool. */
  namespace?: string;
  /** Description of the namespace (first one wins within a turn). */
  namespaceDescription?: string;
  /** Keep this tool's schema behind tool search until selected. */
  deferLoading?: boolean;
  executionMode: ExecutionMode;
  isReadOnly?: boolean;
  isDestructive?: boolean;
  /** Per-call timeout in ms (default: the runtime's, 120 000). */
  timeoutMs?: number;
  /**
   * Ask the user before running a call (README "Tool approvals"): `true`, or a predicate over the
   * validated params and `{callId, turn}`. The turn's `approvals` (or APPROVAL_POLICY) can force
   * (`always`) or waive (`never`) it per tool. A call that needs approval is announced with an
   * `approval.requested` event and runs only once approved; the turn waits (status `waiting`).
   */
  needsApproval?: boolean | ((params: z.output<S>, context: { callId: string; turn: TTurn }) => boolean | Promise<boolean>);
  /** Short human label from validated params, e.g. "Reading src/app.ts"; null = no activity row. */
  describeActivity: (params: z.output<S>) => string | null;
  /** Label that replaces the activity label on success, e.g. "Read src/app.ts (lines 1-200 of 812)". */
  describeCompletedActivity?: (params: z.output<S>, result: TResult) => string | null | undefined;
  /**
   * Label that replaces the activity label when the call failed (threw), timed out or was stopped,
   * e.g. "Could not read /etc/shadow", "Stopped `sleep 30`". Unset or undefined: the runtime's
   * generic form (`Failed: <activity>`, `Stopped: <activity>`, `Timed out: <activity>`).
   */
  describeFailedActivity?: (params: z.output<S>, failure: FailedActivity) => string | null | undefined;
  /**
   * Accept argument keys the schema does not name (they are still stripped by a plain `z.object`).
   * Default false: unknown keys anywhere in the arguments (objects, union and discriminated-union
   * branches) are an `Error:` output naming them, so a call never runs on a different shape than
   * the model sent.
   */
  allowUnknownKeys?: boolean;
  execute: (params: z.output<S>, ctx: ToolExecuteContext<TTurn>) => Promise<TResult>;
}

/** A defined tool: the spec with defaults applied and contract checks passed. */
export interface WorkerAgentTool<S extends z.ZodType = z.ZodType, TResult extends AgentToolResult = AgentToolResult, TTurn = unknown>
  extends WorkerToolSpec<S, TResult, TTurn> {
  strict: boolean;
  deferLoading: boolean;
  isReadOnly: boolean;
  isDestructive: boolean;
}

/** Any tool, regardless of its params type (what arrays of mixed tools hold). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyWorkerAgentTool = WorkerAgentTool<any, any, any>;
