/**
 * TurnEvent: everything a client can see of a turn, as a discriminated union on `type`.
 * The same schemas are used to type the runtime's output, to store events, to stream them as SSE
 * (`event:` = `type`, `data:` = the JSON of {@link StoredTurnEvent}) and to document them in
 * openapi.yaml (test/e2e checks the spec against these). Names are the public contract.
 */
import { z } from 'zod';

const usage = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
});

export const TurnStartedEvent = z.object({
  type: z.literal('turn.started'),
  turn_id: z.string(),
  model: z.string(),
  /** Tool names offered this turn, in request order (namespaced ones as `namespace.name`). */
  tools: z.array(z.string()),
  /**
   * The turn's deferred tools left out of `tools` (TOOL_SEARCH_MODE=client: found and loaded by
   * `tool_search`, callable by name), as `tools` names them; absent when there are none.
   */
  deferred_tools: z
    .array(z.string())
    .optional()
    .describe("The turn's deferred tools left out of `tools` (TOOL_SEARCH_MODE=client: tool_search finds and loads them), named as in `tools`; absent when there are none."),
  /** Families not assembled this turn, and why. */
  unavailable: z.array(z.object({ family: z.string(), reason: z.string() })),
  /**
   * The turn's W3C trace id (32 hex digits), the same as on the turn record; set on every
   * `turn.started` the service streams (src/telemetry/turn-spans.ts), null only for a turn without one.
   */
  trace_id: z.string().nullable().optional(),
});

/**
 * A turn continues after a service restart, from its last checkpoint: `from_step` model requests
 * were already made (they are not repeated). Events before it stay valid; events of a model
 * stream cut by the restart may be followed by a new answer after this event.
 */
export const TurnResumedEvent = z.object({
  type: z.literal('turn.resumed'),
  from_step: z.number().int().nonnegative(),
});

export const MessageDeltaEvent = z.object({
  type: z.literal('message.delta'),
  text: z.string(),
});

/** Reasoning text as the model streams it (Chat Completions reasoning deltas, Responses reasoning summary deltas). Not part of the answer. */
export const ReasoningDeltaEvent = z.object({
  type: z.literal('reasoning.delta'),
  text: z.string(),
});

/**
 * Something about the model's answer that did not fail the turn. `tool_calls_ignored`: the model
 * called tools in an answer to a request that offered none (the final answer after max_steps);
 * those calls were not run and are not in the transcript. `call_ids` name them.
 */
export const ModelWarningEvent = z.object({
  type: z.literal('model.warning'),
  code: z.enum(['tool_calls_ignored']).describe('`tool_calls_ignored`: the answer to a request that offered no tools (the final answer after max_steps) called tools; those calls were not run and are not in the transcript.'),
  message: z.string(),
  call_ids: z.array(z.string()),
});

export const MessageCompletedEvent = z.object({
  type: z.literal('message.completed'),
  text: z.string(),
});

export const ToolStartedEvent = z.object({
  type: z.literal('tool.started'),
  call_id: z.string(),
  name: z.string(),
  /** Activity label from describeActivity, or null when the tool shows no activity row. */
  label: z.string().nullable(),
  /** Arguments as the tool's schema parsed them; null when the call did not reach the tool (see the description). */
  arguments: z.unknown().describe(
    "The call's arguments as the tool's schema parsed them (the form it runs with), for a call that reaches the tool or that a person rejected; null for a call answered without reaching it: unknown tool, arguments that did not validate, or not run (refused, or after a call that ended the turn).",
  ),
});

export const ToolProgressEvent = z.object({
  type: z.literal('tool.progress'),
  call_id: z.string(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export const ToolCompletedEvent = z.object({
  type: z.literal('tool.completed'),
  call_id: z.string(),
  name: z.string(),
  /** Completed label if the tool gave one, else the activity label (null: no activity row). */
  label: z.string().nullable(),
  is_error: z.boolean(),
  /** The text the model saw as function_call_output. */
  output: z.string(),
  details: z.unknown().optional(),
  /** Which repair step fixed malformed arguments, when one did. */
  repaired: z.string().optional(),
  /**
   * Set when the call did not simply run to an answer: `interrupted` — it was running when the
   * service stopped and is not run again (its effect is unknown).
   */
  status: z.enum(['interrupted']).optional(),
  /**
   * Set when this call ends the turn after its round (e.g. `clarify`, `submit_result`): the turn's
   * stop reason and, when the tool sets it, its output text. A turn resumed after a crash ends the
   * same way.
   */
  ends_turn: z.object({ stop_reason: z.string(), output_text: z.string().optional() }).optional(),
});

/**
 * Something odd the turn survived, e.g. a model output item that could not be kept (no `type`).
 * Informational: the turn goes on.
 */
export const TurnWarningEvent = z.object({
  type: z.literal('turn.warning'),
  /** e.g. `invalid_output_item`. */
  code: z.string(),
  message: z.string(),
});

export const PresentationTurnEvent = z.object({
  type: z.literal('presentation'),
  call_id: z.string(),
  event: z.object({ type: z.string() }).catchall(z.unknown()),
});

/**
 * How an approval's `label` reads, for the event, the approvals API and openapi.yaml: always
 * present; null when the tool shows no activity label (its `describeActivity` returns null, as
 * `todo`'s does); the tool's name when its label cannot be made; unsafe characters escaped
 * (src/runtime/call-labels.ts).
 */
export const APPROVAL_LABEL_DESCRIPTION =
  'What the call would do: the tool\'s activity label for these arguments (`Writing notes.txt`). Always present; null when the tool shows no activity label (`todo` has none), the tool name when the label cannot be made. Control characters, line separators, invisible characters and bidirectional controls in it are written as `\\uXXXX` escapes (`Writing a\\u202Eb.txt`).';

/**
 * A call needs the user's approval before it runs (README "Tool approvals"); its arguments are
 * already validated. The turn waits (status `waiting`) until every such call of the round is
 * decided with POST /v1/turns/{id}/approvals, or until `expires_at` (then it is rejected with
 * reason `timed out`).
 */
export const ApprovalRequestedEvent = z.object({
  type: z.literal('approval.requested'),
  call_id: z.string(),
  /** The tool (`name` or `namespace.name`). */
  name: z.string(),
  /** The validated arguments the call would run with. */
  arguments: z.unknown(),
  /** Activity label of the call (what it would do), null when the tool shows none. */
  label: z.string().nullable().describe(APPROVAL_LABEL_DESCRIPTION),
  /** ISO 8601 time after which the call is rejected with reason `timed out`. */
  expires_at: z.string(),
});

/** A decision on an approval was recorded (by a client, or `reject` with reason `timed out`). */
export const ApprovalResolvedEvent = z.object({
  type: z.literal('approval.resolved'),
  call_id: z.string(),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().optional(),
  /** Set when the call was approved with edited arguments: as the tool's schema parsed them (it runs with these). */
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** With `arguments`: the activity label of the call with them (what it runs as), replacing approval.requested's. */
  label: z
    .string()
    .nullable()
    .optional()
    .describe(
      'Set with `arguments`: the tool\'s activity label for the edited arguments (what the call runs as; `tool.started` shows the same), replacing the `label` of `approval.requested`; null when the tool shows no activity label. Unsafe characters are written as `\\uXXXX` escapes, as in approval.requested.',
    ),
});

/**
 * A steering message was stored for this turn (POST /v1/turns/{id}/messages, or a double-text with
 * `multitask_strategy: steer`); it is added to the transcript at the next round boundary.
 */
export const InputQueuedEvent = z.object({
  type: z.literal('input.queued'),
  message_id: z.string(),
});

/**
 * A steering message was added to the transcript as a user message, before the next model
 * request (between rounds, never inside one). Once per message, in the order they were queued.
 */
export const InputAppliedEvent = z.object({
  type: z.literal('input.applied'),
  message_id: z.string(),
});

/**
 * A steering message the turn will never apply: the turn ended before a round boundary took it in
 * (`max_steps` reached, a tool or a failure ended it, a cancel, an interrupting double-text).
 * Stored before the terminal event, once per such message, in the order they were queued; a
 * message sent after it is refused (409 `turn_finished`).
 */
export const InputNotAppliedEvent = z.object({
  type: z.literal('input.not_applied'),
  message_id: z.string(),
  /** How the turn ended: the stop reason of `turn.completed` (e.g. `max_steps`), `failed` or `cancelled`. */
  reason: z.string(),
});

export const TurnCompletedEvent = z.object({
  type: z.literal('turn.completed'),
  output_text: z.string(),
  /** e.g. `stop` | `max_steps` | `terminated` | `max_output_tokens` (cut answer text); README "Turn endings". */
  stop_reason: z.string(),
  steps: z.number().int().nonnegative().describe('Model requests the turn made, as `Turn.steps` (at the `max_steps` limit, `max_steps + 1`).'),
  /** Tokens over the turn; null when the model server did not report usage for a response (unknown, not zero). */
  usage: usage.nullable(),
});

/**
 * The description of a failed turn's `error.code` (the `turn.failed` event's and the turn's), in
 * openapi.yaml: the codes a turn can fail with — answerless endings (src/runtime/policies), model
 * errors (src/model/model-error.ts and the adapters) and the service's own (src/turns). Not an
 * enum: providers add codes.
 */
export const TURN_ERROR_CODE_DESCRIPTION =
  'Why the turn failed; not a closed list (providers add codes). ' +
  'Ended without answer text (README "Turn endings"): `max_output_tokens`, `empty_response`, `max_steps`, `content_filter` or another incomplete reason. ' +
  'The model request failed: the provider\'s own code, e.g. `rate_limit_exceeded`, `insufficient_quota`, `context_length_exceeded`, `server_error`, or — the model endpoint refused this service\'s configuration (HTTP 401, 403, 404; 405 or 501 from an address that is no model API): fix OPENAI_API_KEY, MODEL or OPENAI_BASE_URL — `invalid_api_key`, `model_not_found`, `unknown_url`, `authentication_error`, `permission_error`, `DeploymentNotFound`, …; ' +
  '`http_<status>` (an HTTP error without a code, e.g. `http_503`); `connection_error` (OPENAI_BASE_URL could not be reached, or it accepted the connection and closed it before answering, or answered in another protocol than HTTP; the message names it and the cause, e.g. ECONNREFUSED, UND_ERR_SOCKET); ' +
  '`model_timeout` (nothing received — no event, no keep-alive comment — for MODEL_IDLE_TIMEOUT_MS, or a request longer than MODEL_REQUEST_TIMEOUT_MS; retries spent); `stream_interrupted` (the stream broke or ended before the response completed); ' +
  '`not_event_stream` (a 2xx answer that is not `text/event-stream`, nor a whole answer of the protocol as JSON: OPENAI_BASE_URL points at something else); `response_failed` (a failed response without a code); `model_error`. ' +
  'The service: `internal_error` (an unexpected failure; the message says which), `resume_failed` (the checkpoint of a turn cut by a restart cannot be read), ' +
  '`crash_loop` (the same step was cut by TURN_MAX_CRASHES crashes), `binding_unavailable` (the workflow task of this turn no longer accepts it), `invalid_tool_set` (two of the turn\'s tools share a name, or a tool\'s schema cannot be compiled).';

/**
 * The description of a failed turn's `error.message` in openapi.yaml (what src/model/clean-errors.ts
 * and provider-text.ts make of a provider's text).
 */
export const TURN_ERROR_MESSAGE_DESCRIPTION =
  'What happened, in words. A model error that comes from the endpoint names it — OPENAI_BASE_URL with its userinfo as `***@` and key-like query parameters as `[redacted]` — e.g. `the model endpoint https://api.example/v1 answered HTTP 503: …`, `the stream from the model endpoint … broke: …`, `the model endpoint … sent nothing for 60 s (MODEL_IDLE_TIMEOUT_MS)`. The provider\'s message in it (an HTML error page summarized by its size and title) has every secret value of the service\'s configuration (the SKILL_SECRETS values included, and every one the turn saw before an edit of that file) replaced by `[redacted:<VARIABLE>]` — also a masked echo such as `sk-abc*****xyz` or a base64-encoded one — and at most 4000 characters of the message are kept (then `… [truncated N characters]`).';

export const TurnFailedEvent = z.object({
  type: z.literal('turn.failed'),
  error: z.object({
    code: z.string().describe(TURN_ERROR_CODE_DESCRIPTION),
    message: z.string().describe(TURN_ERROR_MESSAGE_DESCRIPTION),
  }),
});

export const TurnCancelledEvent = z.object({
  type: z.literal('turn.cancelled'),
  calls: z.array(
    z.object({ call_id: z.string(), state: z.enum(['completed', 'cancelled', 'not_started']) }),
  ),
});

export const TurnEvent = z.discriminatedUnion('type', [
  TurnStartedEvent,
  TurnResumedEvent,
  MessageDeltaEvent,
  ReasoningDeltaEvent,
  ModelWarningEvent,
  MessageCompletedEvent,
  ToolStartedEvent,
  ToolProgressEvent,
  ToolCompletedEvent,
  PresentationTurnEvent,
  TurnWarningEvent,
  ApprovalRequestedEvent,
  ApprovalResolvedEvent,
  InputQueuedEvent,
  InputAppliedEvent,
  InputNotAppliedEvent,
  TurnCompletedEvent,
  TurnFailedEvent,
  TurnCancelledEvent,
]);
export type TurnEvent = z.infer<typeof TurnEvent>;
export type TurnEventType = TurnEvent['type'];

/** Terminal event types: after one of these a turn's log never grows and streams close. */
export const TERMINAL_EVENT_TYPES = ['turn.completed', 'turn.failed', 'turn.cancelled'] as const;
export function isTerminalEvent(event: { type: string }): boolean {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type);
}

/**
 * An event as stored in the per-turn log and sent as SSE `data:`.
 * `seq` starts at 1 and increases by 1 per event of that turn; SSE `id:` is `String(seq)`.
 */
export type StoredTurnEvent = TurnEvent & {
  seq: number;
  turn_id: string;
  /** ISO 8601 time the event was stored. */
  created_at: string;
};

/** Usage totals (tokens). */
export type Usage = z.infer<typeof usage>;
