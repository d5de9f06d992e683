/**
 * Dispatch of one round of function calls.
 *
 * Guarantees:
 * - every call gets exactly one function_call_output with its own call_id, whatever happens
 *   (success, unknown tool, validation failure, throw, timeout, abort, terminate, refusal);
 * - consecutive `parallel` calls run concurrently (at most `parallelLimit` at once); a
 *   `sequential` call runs alone, after everything before it finished; outputs are recorded in
 *   the model's order;
 * - per-call timeout (tool's `timeoutMs`, else the default) aborts the tool's signal and yields
 *   `Error: tool X timed out after N ms`;
 * - turn abort aborts every running tool's signal, starts nothing more, and still records an
 *   output for every call (state `cancelled` for running ones, `not_started` for the rest);
 * - a result with `terminate` ends the turn after this round: calls not yet started get
 *   `Error: a prior tool call already ended this turn` (and, like every call that is not run, a
 *   `tool.started` with the generic label and `arguments: null`, then a `tool.completed` with
 *   `is_error` and that output — see {@link emitNotRun}); the first terminating call's
 *   {@link TerminateTurn} (stop reason, output text), if it gave one, is the result's `ending`.
 * - a tool's `execute` never receives unvalidated params;
 * - every `tool.completed` has a `tool.started` before it: a call that never reaches the tool
 *   (unknown, invalid arguments, refused) gets one with a generic label and `arguments: null`,
 *   except a call the user rejected (`rejections`), whose arguments were validated before it was
 *   asked about: its `tool.started` carries them and the tool's own activity label, like a call
 *   that runs, and its `tool.completed` the label `Rejected: <activity>`;
 *   a failed, timed-out or stopped call ends with a completed-form label (see call-labels.ts);
 * - at most `maxCallsPerResponse` calls of one response run; the rest are answered with an
 *   `Error:` telling the model the limit and to split the work (see {@link overLimitMessage});
 * - while `onlyTools` is set (a final-answer guard's restriction), calls to other tools are
 *   refused with an `Error:` naming the allowed tools — the restriction is enforced here, not only
 *   in the tool list sent to the model;
 * - a call whose call_id repeats an earlier call's in the same round is not executed (see
 *   {@link duplicateCallIdMessage}).
 */
import type { ContentPart, FunctionCallOutputItem } from '../model/port.js';
import { validateToolArguments } from './arguments.js';
import { CircuitBreaker } from './circuit-breaker.js';
import type { TurnEvent } from './events.js';
import { failedLabel, genericStartedLabel, notRunLabel, rejectedLabel, toolLabel, type NotRunReason } from './call-labels.js';
import type { AgentToolResult, AnyWorkerAgentTool, FailedActivity, TerminateTurn, ToolContent } from './tool.js';
import { toolIdentity } from './tool-identity.js';
import { keepHead } from './text-cut.js';

/** A function call as completed by the model (`response.output_item.done`). */
export interface FunctionCallRequest {
  callId: string;
  name: string;
  namespace?: string;
  /** Raw arguments text. */
  arguments: string;
}

export type CallState = 'completed' | 'cancelled' | 'not_started';

export interface CallOutcome {
  callId: string;
  /** The text the model saw. */
  outputText: string;
  /** The function_call_output item for the transcript. */
  item: FunctionCallOutputItem;
  isError: boolean;
  state: CallState;
  /** Repair step that fixed the arguments, if any. */
  repaired?: string;
}

export interface DispatchOptions<TTurn = unknown> {
  /** Tools callable this round, by identity (`namespace.name` or `name`). */
  tools: ReadonlyMap<string, AnyWorkerAgentTool>;
  /** The turn's signal (cancel). */
  signal: AbortSignal;
  turnContext: TTurn;
  /** Serialized event sink; never throws. */
  emit: (event: TurnEvent) => Promise<void>;
  /** [4] */
  parallelLimit?: number;
  /** [120000] */
  defaultTimeoutMs?: number;
  breaker: CircuitBreaker;
  /**
   * Per call (same index as the calls): an `Error:` output to answer it with instead of running it
   * (e.g. a repeated identical call, policies/repeated-call.ts); undefined entries run normally.
   */
  refusals?: readonly (string | undefined)[];
  /**
   * Per call (same index as the calls): the `Error:` output of a call the user rejected
   * (./approval-gate.ts); it is not run, but reported with its validated arguments and label.
   */
  rejections?: readonly (string | undefined)[];
  /** When set, every call is answered with this error and nothing runs (e.g. tools disabled). */
  refuseAllWith?: string;
  /** Calls executed per round (one model response) [64]; later calls get an `Error:` output. */
  maxCallsPerResponse?: number;
  /** Output budget per call, characters [{@link DEFAULT_TOOL_OUTPUT_MAX_CHARS}]; see ToolExecuteContext.outputMaxChars. */
  outputMaxChars?: number;
  /** When set, only tools with these identities (`name` / `namespace.name`) may run. */
  onlyTools?: readonly string[];
}

/** Default for {@link DispatchOptions.outputMaxChars} (TOOL_OUTPUT_MAX_CHARS). */
export const DEFAULT_TOOL_OUTPUT_MAX_CHARS = 50_000;

/** Default for {@link DispatchOptions.maxCallsPerResponse}. */
export const DEFAULT_MAX_CALLS_PER_RESPONSE = 64;

export interface DispatchResult {
  outcomes: CallOutcome[];
  terminated: boolean;
  /** Set when the terminating tool named how the turn ends (stop reason, output text). */
  ending?: TerminateTurn;
  cancelled: boolean;
}

/** Output of a call not started because an earlier call of the round ended the turn. */
export const PRIOR_TERMINATE = 'Error: a prior tool call already ended this turn';
/** Output of a call not started because the turn was cancelled. */
export const NOT_STARTED_CANCEL = 'Error: the turn was cancelled before this tool call started';
const RUNNING_CANCEL = 'Error: the turn was cancelled while this tool call was running';

/**
 * True for the `tool.completed` of a call that was running when the turn's signal was aborted
 * (its output says the turn was cancelled while it ran). A run stopped without ending its turn
 * (src/turns/turn-run.ts: a shutdown, a lost lease) does not store it, so the call stays started
 * but not completed, as a crash leaves it, and the resumed round treats it so.
 */
export function isStoppedWhileRunning(event: TurnEvent): boolean {
  return event.type === 'tool.completed' && event.is_error && event.output === RUNNING_CANCEL && event.status === undefined;
}

/**
 * The call's output text (its text parts joined) and its transcript item. Text parts are made
 * well-formed (a lone UTF-16 surrogate, e.g. half an emoji a tool cut, becomes U+FFFD), as the
 * event log stores them (src/store/safe-json.ts): the transcript, the `tool.completed` event and a
 * resume that takes the output from the log (src/turns/resume.ts) then hold the same text.
 */
function outputFromContent(callId: string, raw: ToolContent[]): { text: string; item: FunctionCallOutputItem } {
  const content = raw.map((c) => (c.type === 'text' ? { ...c, text: (c.text as string & { toWellFormed(): string }).toWellFormed() } : c));
  const text = content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('\n');
  if (!content.some((c) => c.type === 'image')) {
    return { text, item: { type: 'function_call_output', call_id: callId, output: text } };
  }
  const parts: ContentPart[] = content.map((c) =>
    c.type === 'text' ? { type: 'text', text: c.text } : { type: 'image', url: c.url, detail: 'auto' },
  );
  return { text, item: { type: 'function_call_output', call_id: callId, output: parts } };
}

function errorOutcome(callId: string, text: string, state: CallState): CallOutcome {
  return { callId, outputText: text, item: { type: 'function_call_output', call_id: callId, output: text }, isError: true, state };
}

class TimeoutError extends Error {}

/**
 * The content with its text parts cut to `maxChars` in total (grapheme-safe, see text-cut.ts) and
 * a marker saying so; unchanged when it fits. Tools fit their output themselves with a better
 * hint — this is the backstop that makes the budget hold for every tool.
 */
export function fitOutput(content: ToolContent[], maxChars: number): ToolContent[] {
  const total = content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 0), 0);
  if (total <= maxChars) return content;
  const marker = `\n[output cut at ${maxChars} of ${total} characters (TOOL_OUTPUT_MAX_CHARS); ask for less, e.g. a narrower range or a filter]`;
  let left = Math.max(0, maxChars - marker.length);
  const out: ToolContent[] = [];
  for (const c of content) {
    if (c.type !== 'text') out.push(c);
    else if (left > 0) {
      const kept = keepHead(c.text, left);
      left -= kept.length;
      out.push({ type: 'text', text: kept });
    }
  }
  const lastText = out.map((c) => c.type).lastIndexOf('text');
  if (lastText >= 0) out[lastText] = { type: 'text', text: (out[lastText] as { text: string }).text + marker };
  else out.push({ type: 'text', text: marker.trimStart() });
  return out;
}

/** The output for call number `position` (1-based) of `total` when over the per-response limit. */
export function overLimitMessage(position: number, total: number, limit: number): string {
  return `Error: this response contained ${total} function calls, over the limit of ${limit} per response; call #${position} was not executed. Split the work: make at most ${limit} calls per response and send the rest in later responses.`;
}

/**
 * The output for a function_call whose call_id repeats an earlier one in the same response.
 *
 * Why answer the duplicate (with this error, same call_id) rather than drop it: both function_call
 * items are already in the transcript — they are the model's output, and in previous_response_id
 * mode the provider stores them as they are — and the Responses API rejects input where a
 * function_call has no function_call_output. So the invariant kept is "one function_call_output
 * per function_call item, in the model's order"; only the first call with that call_id runs (a
 * side-effecting tool must not run twice for what may be one call echoed by the provider).
 */
export function duplicateCallIdMessage(callId: string): string {
  return `Error: call_id ${callId} was already used by an earlier function call in this response; this call was not executed. If it is still needed, call the tool again.`;
}

/**
 * Run one round of calls. Never throws (a throwing tool or emitter becomes an error output).
 */
export async function dispatchRound<TTurn>(calls: FunctionCallRequest[], opts: DispatchOptions<TTurn>): Promise<DispatchResult> {
  const outcomes: (CallOutcome | undefined)[] = new Array(calls.length);
  let terminated = false;
  let ending: TerminateTurn | undefined;
  const limit = Math.max(1, opts.parallelLimit ?? 4);
  const maxCalls = Math.max(1, opts.maxCallsPerResponse ?? DEFAULT_MAX_CALLS_PER_RESPONSE);
  // Calls answered with an error without running: over the limit, or a repeated call_id.
  const refusals: (string | undefined)[] = new Array(calls.length);
  const rejected = new Set<number>();
  const seenCallIds = new Set<string>();
  calls.forEach((call, index) => {
    if (index >= maxCalls) refusals[index] = overLimitMessage(index + 1, calls.length, maxCalls);
    else if (seenCallIds.has(call.callId)) refusals[index] = duplicateCallIdMessage(call.callId);
    else if (opts.rejections?.[index] !== undefined) {
      refusals[index] = opts.rejections[index];
      rejected.add(index);
    }
    else if (opts.refusals?.[index] !== undefined) refusals[index] = opts.refusals[index];
    seenCallIds.add(call.callId);
  });
  const mode = (index: number) => (refusals[index] === undefined ? lookup(calls[index], opts.tools)?.executionMode : undefined);

  const runOne = async (index: number): Promise<void> => {
    const call = calls[index];
    if (opts.signal.aborted) {
      outcomes[index] = errorOutcome(call.callId, NOT_STARTED_CANCEL, 'not_started');
      return;
    }
    if (refusals[index] !== undefined) {
      outcomes[index] = await executeCall(call, opts, () => undefined, refusals[index], rejected.has(index));
      return;
    }
    if (terminated) {
      await emitNotRun(opts.emit, call, PRIOR_TERMINATE);
      outcomes[index] = errorOutcome(call.callId, PRIOR_TERMINATE, 'not_started');
      return;
    }
    outcomes[index] = await executeCall(call, opts, (how) => {
      if (!terminated && typeof how === 'object') ending = how;
      terminated = true;
    });
  };

  // Split into segments: a run of consecutive parallel calls, or one sequential call.
  let i = 0;
  while (i < calls.length) {
    if (mode(i) === 'parallel') {
      let j = i;
      while (j < calls.length && mode(j) === 'parallel') j++;
      const queue = Array.from({ length: j - i }, (_, k) => i + k);
      const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) await runOne(next);
      });
      await Promise.all(workers);
      i = j;
    } else {
      await runOne(i);
      i++;
    }
  }
  const done = outcomes as CallOutcome[];
  return { outcomes: done, terminated, ...(ending ? { ending } : {}), cancelled: opts.signal.aborted };
}

/** The `ends_turn` of a `tool.completed` for a result's `terminate`. */
function endsTurn(how: true | TerminateTurn): { stop_reason: string; output_text?: string } {
  if (how === true) return { stop_reason: 'terminated' };
  return { stop_reason: how.stopReason, ...(how.outputText !== undefined ? { output_text: how.outputText } : {}) };
}

/**
 * Report a call that is answered without reaching its tool: a `tool.started` with the generic
 * label (`Calling <tool>`) and `arguments: null`, then a `tool.completed` with `is_error: true`,
 * the completed-form label `notRunLabel(tool, reason)` and `output` (what the model reads).
 *
 * `started: false` skips the `tool.started` — for a resumed round whose event log already holds
 * the call's `tool.started` but not its `tool.completed` — so every `tool.completed` has exactly
 * one `tool.started` before it. Never throws when `emit` does not (the dispatch emitter never does).
 */
export async function emitNotRun(
  emit: (event: TurnEvent) => Promise<void>,
  call: Pick<FunctionCallRequest, 'callId' | 'name' | 'namespace'>,
  output: string,
  opts: { reason?: NotRunReason; started?: boolean; repaired?: string } = {},
): Promise<void> {
  const name = toolIdentity(call);
  if (opts.started !== false) await emit({ type: 'tool.started', call_id: call.callId, name, label: genericStartedLabel(name), arguments: null });
  await emit({ type: 'tool.completed', call_id: call.callId, name, label: notRunLabel(name, opts.reason ?? 'refused'), is_error: true, output, ...(opts.repaired ? { repaired: opts.repaired } : {}) });
}

function lookup(call: FunctionCallRequest, tools: ReadonlyMap<string, AnyWorkerAgentTool>): AnyWorkerAgentTool | undefined {
  return tools.get(toolIdentity(call));
}

async function executeCall<TTurn>(
  call: FunctionCallRequest,
  opts: DispatchOptions<TTurn>,
  onTerminate: (how: true | TerminateTurn) => void,
  refusal?: string,
  rejectedByUser = false,
): Promise<CallOutcome> {
  const displayName = toolIdentity(call);
  // A call that does not reach the tool still gets a tool.started (generic label) before its
  // tool.completed, with a completed-form label saying what happened.
  const notRun = async (text: string, reason: NotRunReason, repaired?: string): Promise<CallOutcome> => {
    await emitNotRun(opts.emit, call, text, { reason, ...(repaired ? { repaired } : {}) });
    return { ...errorOutcome(call.callId, text, 'completed'), ...(repaired ? { repaired } : {}) };
  };

  if (refusal !== undefined && rejectedByUser) {
    const asked = lookup(call, opts.tools);
    const checked = asked ? validateToolArguments(asked, call.arguments) : undefined;
    if (asked && checked?.ok) {
      const params = checked.params;
      const label = toolLabel(() => asked.describeActivity(params), displayName);
      await opts.emit({ type: 'tool.started', call_id: call.callId, name: displayName, label, arguments: params });
      await opts.emit({ type: 'tool.completed', call_id: call.callId, name: displayName, label: label === null ? null : rejectedLabel(label), is_error: true, output: refusal });
      return errorOutcome(call.callId, refusal, 'completed');
    }
  }
  if (refusal !== undefined) return notRun(refusal, 'refused');
  if (opts.refuseAllWith !== undefined) return notRun(opts.refuseAllWith, 'refused');
  if (opts.onlyTools && !opts.onlyTools.includes(displayName)) {
    const allowed = [...opts.onlyTools].sort().join(', ') || '(none)';
    return notRun(`Error: tool ${displayName} cannot be called now; only these tools are allowed: ${allowed}.`, 'refused');
  }

  const tool = lookup(call, opts.tools);
  if (!tool) {
    const available = [...opts.tools.keys()].sort().join(', ') || '(none)';
    return notRun(`Error: unknown tool ${displayName}. Available tools: ${available}.`, 'unknown_tool');
  }
  const identity = toolIdentity(tool);
  if (opts.breaker.isRefused(identity)) return notRun(opts.breaker.refusal(identity), 'refused');

  const validated = validateToolArguments(tool, call.arguments);
  if (!validated.ok) {
    return notRun(opts.breaker.recordFailure(identity, call.arguments, validated.error), 'invalid_arguments', validated.repaired);
  }
  const params = validated.params;
  const label = toolLabel(() => tool.describeActivity(params), displayName);
  await opts.emit({ type: 'tool.started', call_id: call.callId, name: displayName, label, arguments: params });
  /** Completed-form label of a call that ended without a result (null stays null: no activity row). */
  const endedLabel = (failure: FailedActivity): string | null => {
    const generic = label === null ? null : failedLabel(label, failure);
    return toolLabel(() => tool.describeFailedActivity?.(params, failure), generic);
  };

  const controller = new AbortController();
  const onTurnAbort = () => controller.abort(opts.signal.reason);
  opts.signal.addEventListener('abort', onTurnAbort, { once: true });
  const timeoutMs = tool.timeoutMs ?? opts.defaultTimeoutMs ?? 120_000;
  const outputMaxChars = opts.outputMaxChars ?? DEFAULT_TOOL_OUTPUT_MAX_CHARS;
  let timer: NodeJS.Timeout | undefined;
  let result: AgentToolResult | undefined;
  let failure: string | undefined;
  let cancelled = false;
  let timedOut = false;
  let threw = false;
  try {
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => undefined);
    timer = setTimeout(() => controller.abort(new TimeoutError()), timeoutMs);
    const emitProgress = (p: { message: string; data?: Record<string, unknown> }) => {
      if (controller.signal.aborted) return;
      void opts.emit({ type: 'tool.progress', call_id: call.callId, message: String(p?.message ?? ''), ...(p?.data ? { data: p.data } : {}) });
    };
    result = await Promise.race([
      Promise.resolve().then(() => tool.execute(params, { callId: call.callId, signal: controller.signal, turn: opts.turnContext, emit: emitProgress, outputMaxChars })),
      aborted,
    ]);
    if (!result || !Array.isArray(result.content)) throw new Error('tool returned no content');
  } catch (err) {
    threw = true;
    if (controller.signal.reason instanceof TimeoutError && !opts.signal.aborted) {
      failure = `Error: tool ${displayName} timed out after ${timeoutMs} ms`;
      timedOut = true;
    } else if (opts.signal.aborted) {
      cancelled = true;
    } else {
      const message = err instanceof Error ? err.message : String(err);
      failure = `Error: tool ${displayName} failed: ${message}`;
    }
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', onTurnAbort);
    // A call that failed may leave work behind (a sibling fetch, a timer): stop it. A call that
    // returned its result is finished; aborting it would only build a DOMException per call.
    if (threw && !controller.signal.aborted) controller.abort();
  }

  if (cancelled) {
    const stopped = endedLabel({ kind: 'cancelled', message: RUNNING_CANCEL });
    await opts.emit({ type: 'tool.completed', call_id: call.callId, name: displayName, label: stopped, is_error: true, output: RUNNING_CANCEL });
    return errorOutcome(call.callId, RUNNING_CANCEL, 'cancelled');
  }
  if (failure !== undefined) {
    const text = opts.breaker.recordFailure(identity, call.arguments, failure);
    const failedAs = endedLabel({ kind: timedOut ? 'timed_out' : 'failed', message: text });
    await opts.emit({ type: 'tool.completed', call_id: call.callId, name: displayName, label: failedAs, is_error: true, output: text, ...(validated.repaired ? { repaired: validated.repaired } : {}) });
    return { ...errorOutcome(call.callId, text, 'completed'), ...(validated.repaired ? { repaired: validated.repaired } : {}) };
  }
  const res = result!;
  for (const event of res.presentation ?? []) {
    await opts.emit({ type: 'presentation', call_id: call.callId, event });
  }
  const { text, item } = outputFromContent(call.callId, fitOutput(res.content, outputMaxChars));
  const completedLabel = toolLabel(() => tool.describeCompletedActivity?.(params, res), label) ?? label;
  await opts.emit({
    type: 'tool.completed',
    call_id: call.callId,
    name: displayName,
    label: completedLabel,
    is_error: false,
    output: text,
    ...(res.details !== undefined ? { details: res.details } : {}),
    ...(validated.repaired ? { repaired: validated.repaired } : {}),
    ...(res.terminate ? { ends_turn: endsTurn(res.terminate) } : {}),
  });
  if (res.terminate) onTerminate(res.terminate);
  return { callId: call.callId, outputText: text, item, isError: false, state: 'completed', ...(validated.repaired ? { repaired: validated.repaired } : {}) };
}
