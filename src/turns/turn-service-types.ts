/**
 * The turn service's interface, as used by routes and by other services (schedules fire turns,
 * workflows run task turns). Implemented in src/turns/turn-service.ts.
 */
import type { ModelApi, ToolFamily } from '../config.js';
import type { Usage } from '../runtime/events.js';
import type { WebhookSpec } from '../webhooks/webhook-spec.js';
import type { RequestApprovals } from './approvals/policy.js';
import type { StoredTaskBinding, TurnKind, TurnOrigin, TurnRecordStatus } from './turn-kinds.js';

export type { TurnRecordStatus };

/** See {@link CreateTurnInput.multitask_strategy}. */
export const MULTITASK_STRATEGIES = ['reject', 'enqueue', 'interrupt', 'steer'] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

/** A turn request as accepted by POST /v1/turns (after zod validation and defaults). */
export interface CreateTurnInput {
  input: string | { role: 'user' | 'assistant' | 'system' | 'developer'; content: string }[];
  instructions?: string;
  model?: string;
  /** Wire protocol of this turn's model requests (default: MODEL_API). */
  model_api?: ModelApi;
  agent_id: string;
  tools?: ToolFamily[];
  max_steps?: number;
  previous_turn_id?: string;
  /**
   * Double-texting: what to do when `previous_turn_id` is still active (queued, running, waiting).
   * `reject` (default): 409 `previous_turn_active`; `enqueue`: this turn waits as queued and runs
   * on the previous turn's final transcript when it ends; `interrupt`: the previous turn is
   * cancelled (its completed rounds stay) and this one runs on that transcript, starting with the
   * steering messages it had not applied (src/turns/inputs/ `takeOver`); `steer`: the input
   * goes into the previous turn as a steering message (no new turn), and any field besides
   * input, previous_turn_id, agent_id and multitask_strategy is refused (400 `invalid_request`,
   * src/turns/turn-service.ts `steerFieldsIgnored`) unless its value means what leaving it out
   * means (`meansLeftOut`: `brain: false`, the server's MODEL, …). On a finished previous turn
   * every strategy is a plain continuation. The HTTP route accepts it only with `previous_turn_id`.
   */
  multitask_strategy?: MultitaskStrategy;
  metadata?: Record<string, unknown>;
  brain?: boolean;
  /** Webhook for the terminal event (src/webhooks/webhook-spec.ts); checked by the route. */
  webhook?: WebhookSpec;
  /** Skills for this turn instead of the agent's enabled list. */
  skills?: string[];
  /** Which tools wait for the user's approval (README "Tool approvals"); unset: APPROVAL_POLICY. */
  approvals?: RequestApprovals;
}

/** Options only other services (not HTTP clients) may set. */
export interface CreateTurnOptions {
  origin?: TurnOrigin;
  kind?: TurnKind;
  idempotencyKey?: string;
  /** Called when `idempotencyKey` matched an earlier turn with the same request (that turn is returned). */
  onReplay?: () => void;
  /**
   * For kind === 'workflow_task': stored with the turn; the live binding (submit, final-answer
   * guard) is rebuilt from it (src/turns/task-binding.ts) whenever the turn runs or resumes.
   */
  workflowTask?: StoredTaskBinding;
  /** The caller's W3C `traceparent` header: the turn joins that trace (else it starts its own). */
  traceparent?: string;
  /**
   * Request fields the caller acted on itself instead of passing them in the input (POST
   * /v1/turns: `cancel_on_disconnect`, when sent as `true`; `false` is what leaving it out means).
   * A `steer` double-text on an active turn uses none of them, so it refuses them as it refuses
   * the input's fields it does not use.
   */
  callerFields?: readonly string[];
  /**
   * Checks of the request's fields that only a new turn uses (POST /v1/turns: known skills, the
   * webhook target, approvals' tool names), for a `steer` request: run when it starts a new turn
   * (its previous turn has finished), before the turn is stored, and not when it steers the
   * active turn, where those fields are refused as not used by steer first.
   */
  newTurnChecks?: () => Promise<void>;
}

/** GET /v1/turns/{id} shape. Times are ISO 8601 strings. */
export interface TurnRecord {
  id: string;
  agent_id: string;
  status: TurnRecordStatus;
  kind: TurnKind;
  origin: TurnOrigin;
  model: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  output_text: string | null;
  stop_reason: string | null;
  steps: number;
  /** Tokens over the turn; null when the model server did not report usage (unknown, not zero). */
  usage: Usage | null;
  error: { code: string; message: string } | null;
  metadata: Record<string, unknown> | null;
  /**
   * The turn this one continues (its request's `previous_turn_id`; for an `enqueue` / `interrupt`
   * follow-up the turn it was chained behind, which can be a newer one than the id sent), or null
   * for a first turn.
   */
  previous_turn_id: string | null;
  /** W3C trace id of the turn's trace (32 hex digits; src/telemetry/trace-context.ts). */
  trace_id: string | null;
  /**
   * Set only by `create` with `multitask_strategy: steer` on an active previous turn: this record
   * is that turn, and the input went into it as steering message `message_id`.
   */
  steered?: { message_id: string };
  /**
   * First line of the turn's input that has text, as clean one-line text (≤ 120 characters; lines
   * end at \n, \r, U+2028, U+2029…; control characters dropped, whitespace runs one space), for
   * lists; null when it has no text (src/store/turn-rows.ts inputPreview).
   */
  input_preview?: string | null;
}

export interface TurnService {
  /** Validate, persist (queued) and schedule a turn. Idempotency handled here. */
  create(input: CreateTurnInput, options?: CreateTurnOptions): Promise<TurnRecord>;
  get(id: string): Promise<TurnRecord | undefined>;
  /** Abort a running or queued turn; a finished turn is returned unchanged. */
  cancel(id: string): Promise<TurnRecord | undefined>;
  /** Resolves with the record once the turn is terminal. */
  waitForTerminal(id: string, signal?: AbortSignal): Promise<TurnRecord>;
}

