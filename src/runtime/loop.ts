/**
 * The agent loop: `runTurn` runs one turn as a sequence of rounds over a serializable
 * {@link TurnState} (src/runtime/turn-state.ts) — each round one model request plus the dispatch
 * of its calls (src/runtime/round.ts) — and reports typed {@link TurnEvent}s in order.
 *
 * Rules (each a small decision in src/runtime/policies/):
 * - Repeat until a response has no function calls. After `maxSteps` [20] rounds with function
 *   calls, one last request is made with tools disabled (`tool_choice: "none"`) asking for a final
 *   answer; stop reason `max_steps`.
 * - `incomplete` because of `max_output_tokens`: its items (possibly cut calls) are dropped and the
 *   request is retried once with an instruction that the previous answer was cut off
 *   (policies/cut-retry.ts); a second time ends the turn with stop reason `max_output_tokens`.
 *   Other incomplete reasons end the turn with that reason.
 * - An empty completed response after tool use gets one nudge; still empty → `empty_response`.
 * - A turn that ends without answer text because of truncation or emptiness ends `turn.failed`
 *   with that code (`max_output_tokens`, `empty_response`, …), never `turn.completed` with empty
 *   output (policies/answerless-end.ts).
 * - A final answer that is tool-call markup written as text gets one nudge to use real function
 *   calls; text is never run (policies/tool-call-text.ts).
 * - After 3 identical calls in a row with identical results, the next identical call is answered
 *   with an `Error:` quoting the last result instead of running (policies/repeated-call.ts).
 * - Model errors (HTTP errors after retries, error events, a stream cut mid-way) end the turn
 *   `failed` with the provider's code and message; the transcript stays valid (items of the failed
 *   response are not added).
 * - Cancel (`signal`): running tools are aborted, no further tool or request starts, every open
 *   call gets an output, and the turn ends `cancelled`.
 * - `finalAnswerGuard` may send one instruction (more when it says `repeatable`) before the turn
 *   ends, optionally restricting the offered tools.
 *
 * Durability: `checkpoint` is called mid-round (a response with calls, before any call runs),
 * after a round that continues unless the event log alone can rebuild it (`run_again` with
 * `rebuildable`: its calls all succeeded, their outputs are in their `tool.completed` events —
 * resuming from the mid-round checkpoint then re-dispatches the round from those events without
 * running anything), and `checkpoint(state, next)` once before the terminal event with the final
 * state. `resume` continues a stored state: `turn.resumed {from_step}` instead of
 * `turn.started`, and a pending round is dispatched without a new model request.
 * Steering: `atRoundBoundary` adds messages between rounds (never inside one), checkpointed with
 * their cursor before the next request; one arriving while the model answers makes one more round,
 * which counts against `maxSteps` like a round with calls (reaching it makes that round the final
 * one without tools). The final answer after `maxSteps` is not continued: the hook's owner reports
 * its pending messages as not applied (src/turns/inputs/).
 * Approvals (`approvals`, ./approval-gate.ts): a round whose calls wait for a decision ends the
 * run with status `waiting` — checkpointed with the round still pending, no terminal event;
 * resuming it dispatches that round again with the decisions recorded meanwhile.
 * `runTurn` never throws; `emit` is awaited for every event (back-pressure).
 */
import { CircuitBreaker } from './circuit-breaker.js';
import type { CompiledTool } from './compiled-tool.js';
import type { TurnEvent } from './events.js';
import { buildProviderTools, compileToolSet, providerToolNames } from './provider-tools.js';
import { decideEnding } from './policies/answerless-end.js';
import { decideAfterToolRound } from './policies/max-steps.js';
import { developerMessage } from './transcript-items.js';
import { runRound } from './round.js';
import type { NextStep, RoundTools } from './round-types.js';
import { createToolSearchTool, TOOL_SEARCH_NAME } from './tool-search.js';
import type { AnyWorkerAgentTool } from './tool.js';
import { initialTurnState, type TurnState } from './turn-state.js';
import type { RunTurnOptions, RunTurnResult } from './turn-types.js';

export { MAX_STEPS_INSTRUCTION } from './policies/max-steps.js';
export { EMPTY_RESPONSE_NUDGE } from './policies/empty-response.js';

export const DEFAULT_MAX_STEPS = 20;

function roundTools(opts: RunTurnOptions<unknown>, compiled: CompiledTool[], loadedIds: string[]): RoundTools {
  const searchMode = opts.options?.toolSearchMode ?? 'client';
  const loaded = new Set(loadedIds);
  const deferred = compiled.filter((c) => c.tool.deferLoading);
  const callable = new Map<string, AnyWorkerAgentTool>(compiled.map((c) => [c.identity, c.tool]));
  if (deferred.length > 0 && searchMode === 'client' && !callable.has(TOOL_SEARCH_NAME)) {
    callable.set(TOOL_SEARCH_NAME, createToolSearchTool(deferred, loaded));
  }
  // Rebuilt only when the loaded set or the tool restriction changes (same array otherwise).
  let cached: { key: string; defs: ReturnType<typeof buildProviderTools> } | undefined;
  const definitions = (onlyTools: string[] | undefined) => {
    const key = `${loaded.size}|${onlyTools?.join(',') ?? '*'}`;
    if (cached?.key !== key) {
      cached = { key, defs: buildProviderTools(opts.tools, { toolSearchMode: searchMode, loaded, ...(onlyTools ? { onlyTools } : {}) }) };
    }
    return cached.defs;
  };
  const toolNames = new Set([...callable.keys(), ...[...callable.values()].map((t) => t.name)]);
  return { callable, deferred, loaded, toolNames, definitions };
}

/**
 * An answer continued because steering messages came: one step against `maxSteps`
 * (policies/max-steps.ts); reaching it makes the next request the final one without tools.
 */
function countSteeredAnswer(state: TurnState, maxSteps: number): void {
  state.toolRounds++;
  const next = decideAfterToolRound(state, maxSteps);
  if (next.type !== 'disable_tools') return;
  state.toolsDisabled = true;
  state.onlyTools = undefined;
  state.transcript.push(developerMessage(next.instruction));
}

/** Run (or resume) one turn. See the module doc for the rules. Never throws. */
export async function runTurn<TTurn>(opts: RunTurnOptions<TTurn>): Promise<RunTurnResult> {
  const maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
  let state: TurnState = opts.resume?.state ?? initialTurnState(opts.input);
  let emitted = 0;
  // Serialize every event through one chain so concurrent tools cannot reorder or interleave them.
  let chain: Promise<void> = Promise.resolve();
  const emit = (event: TurnEvent): Promise<void> => {
    chain = chain.then(async () => {
      try {
        await opts.emit(event);
        emitted++;
      } catch {
        // emit must not throw; an emitter bug must not break the turn
      }
    });
    return chain;
  };
  const lastSeq = () => opts.lastSeq?.() ?? emitted;
  const checkpoint = async (s: TurnState, next?: NextStep) => {
    try {
      await opts.checkpoint?.(s, next);
    } catch {
      // A failed checkpoint loses durability, not the turn: it goes on in memory.
    }
  };

  const finish = async (step: Exclude<NextStep, { type: 'run_again' }>): Promise<RunTurnResult> => {
    let next = step;
    if (next.type === 'completed') {
      // A turn ending without answer text (cut, empty) fails with that code (policies/answerless-end.ts).
      const ending = decideEnding(next.stopReason, state.lastText, { requests: state.steps, nudged: state.nudged, ...(next.ignoredTools ? { ignoredTools: next.ignoredTools } : {}) });
      if (ending.type === 'failed') next = { type: 'failed', error: ending.error };
    }
    await checkpoint(state, next);
    const base = { steps: state.steps, usage: state.usage ? { ...state.usage } : null, transcript: state.transcript, toolStats: state.toolStats, lastResponseId: state.lastResponseId, state };
    if (next.type === 'completed') {
      await emit({ type: 'turn.completed', output_text: state.lastText, stop_reason: next.stopReason, steps: state.steps, usage: state.usage ? { ...state.usage } : null });
      return { ...base, status: 'completed', outputText: state.lastText, stopReason: next.stopReason };
    }
    if (next.type === 'cancelled') {
      await emit({ type: 'turn.cancelled', calls: next.calls });
      return { ...base, status: 'cancelled', outputText: state.lastText };
    }
    if (next.type === 'waiting') return { ...base, status: 'waiting', outputText: state.lastText };
    await emit({ type: 'turn.failed', error: next.error });
    return { ...base, status: 'failed', outputText: state.lastText, error: next.error };
  };

  let compiled: CompiledTool[];
  try {
    compiled = compileToolSet(opts.tools);
  } catch (err) {
    await emit({ type: 'turn.started', turn_id: opts.turnId, model: opts.modelName, tools: [], unavailable: opts.unavailable ?? [] });
    return finish({ type: 'failed', error: { code: 'invalid_tool_set', message: (err as Error).message } });
  }
  const tools = roundTools(opts as RunTurnOptions<unknown>, compiled, state.loaded);
  if (opts.resume) {
    await emit({ type: 'turn.resumed', from_step: state.steps });
  } else {
    const names = providerToolNames(tools.definitions(state.onlyTools));
    // Deferred tools not sent with the request (client tool search) are still the turn's: named apart.
    const sent = new Set(names);
    const deferred = tools.deferred.map((c) => c.identity).filter((id) => !sent.has(id) && (!state.onlyTools || state.onlyTools.includes(id)));
    await emit({ type: 'turn.started', turn_id: opts.turnId, model: opts.modelName, tools: names, ...(deferred.length > 0 ? { deferred_tools: deferred } : {}), unavailable: opts.unavailable ?? [] });
  }
  if (opts.resume?.ended) return finish(opts.resume.ended);

  const breaker = new CircuitBreaker(state.breaker);
  let priorCalls = opts.resume?.priorCalls;
  // Steering input at a round boundary: appended, checkpointed with its cursor, then announced.
  const takeInput = async (at: 'round' | 'answer'): Promise<boolean> => {
    const input = await opts.atRoundBoundary?.(state, at).catch(() => undefined);
    if (!input) return false;
    state.transcript.push(...input.items);
    state.inputCursor = input.cursor;
    if (at === 'answer' && input.items.length > 0) countSteeredAnswer(state, maxSteps);
    await checkpoint(state);
    await input.applied?.().catch(() => undefined);
    return input.items.length > 0;
  };
  for (;;) {
    if (!state.round) await takeInput('round');
    const r = await runRound(state, {
      model: opts.model,
      modelName: opts.modelName,
      ...(opts.instructions !== undefined ? { instructions: opts.instructions } : {}),
      toolChoice: opts.toolChoice ?? 'auto',
      maxSteps,
      options: opts.options ?? {},
      tools,
      breaker,
      signal: opts.signal,
      emit,
      lastSeq,
      turnContext: opts.turnContext,
      ...(opts.finalAnswerGuard ? { finalAnswerGuard: opts.finalAnswerGuard } : {}),
      checkpoint: (s) => checkpoint(s),
      ...(priorCalls ? { priorCalls } : {}),
      ...(opts.approvals ? { approvals: opts.approvals } : {}),
    });
    priorCalls = undefined;
    state = r.state;
    // A message that arrived during the answering round gets one more round (the turn goes on).
    if (r.next.type === 'completed' && r.next.stopReason === 'stop' && (await takeInput('answer'))) continue;
    if (r.next.type !== 'run_again') return finish(r.next);
    // A round the event log can rebuild is stored with the next checkpoint (the next round's
    // mid-round one, or the final one): one write a round instead of two.
    if (!r.next.rebuildable) await checkpoint(state);
  }
}
