/**
 * One round of a turn: one model request plus the dispatch of its calls, as
 * `runRound(state, deps) → {state, next}`. The policies deciding what follows are small named
 * decisions in ./policies/ (cut retry, empty response, tool-call text, final answer, max steps,
 * repeated calls, answerless endings).
 *
 * After max steps (tools disabled) a response's calls are dropped with a `model.warning`
 * `tool_calls_ignored` ({@link ignoredCalls}); its text is the answer. A Chat Completions answer to
 * a request that offered no tools has its calls dropped the same way by the adapter. An answer
 * left with no text ends `completed` with `ignoredTools` (the names those calls used), for the
 * ending's message.
 *
 * Mid-round checkpoint: a response with calls is put in `state.round` and checkpointed
 * (`deps.checkpoint`) BEFORE any call runs, so a crash never makes the model answer the same
 * round twice; the dispatch phase (./round-dispatch.ts) then appends the round to the
 * transcript. A state that already has `round` (resumed) skips the model request.
 * Never throws; `state` is updated in place and returned.
 */
import type { ModelRequest, TranscriptItem } from '../model/port.js';
import { normalizeOutputItems } from './function-calls.js';
import { readModelResponse } from './model-response.js';
import { decideCutRetry } from './policies/cut-retry.js';
import { decideToolCallText } from './policies/tool-call-text.js';
import { decideEmptyResponse } from './policies/empty-response.js';
import { decideFinalAnswer } from './policies/final-answer.js';
import { ignoredCalls } from './policies/max-steps.js';
import { dispatchPendingRound } from './round-dispatch.js';
import type { NextStep, RoundDeps } from './round-types.js';
import { developerMessage, messageText } from './transcript-items.js';
import type { TurnState } from './turn-state.js';

function hasCalls(items: readonly TranscriptItem[]): boolean {
  return items.some((i) => i.type === 'function_call' || i.type === 'custom_tool_call' || (i.type === 'tool_search_call' && i.execution === 'client'));
}

function recordResponseId(state: TurnState, id: string | undefined, coveredItems: number): void {
  if (!id) return;
  state.lastResponseId = id;
  state.coveredItems = coveredItems;
}

export async function runRound<TTurn>(state: TurnState, deps: RoundDeps<TTurn>): Promise<{ state: TurnState; next: NextStep }> {
  if (state.round) return { state, next: await dispatchPendingRound(state, deps) };
  const done = (next: NextStep) => ({ state, next });
  if (deps.signal.aborted) return done({ type: 'cancelled', calls: [] });

  const request: ModelRequest = {
    model: deps.modelName,
    ...(deps.instructions !== undefined ? { instructions: deps.instructions } : {}),
    input: [...state.transcript],
    tools: deps.tools.definitions(state.onlyTools),
    toolChoice: state.toolsDisabled ? 'none' : deps.toolChoice,
    ...(deps.options.maxOutputTokens !== undefined ? { maxOutputTokens: deps.options.maxOutputTokens } : {}),
    ...(state.lastResponseId !== undefined ? { continuation: { responseId: state.lastResponseId, coveredItems: state.coveredItems } } : {}),
  };
  state.steps++;
  let response;
  // Every event the provider sent, also those the adapter does not pass on (tool-call chunks, …).
  let providerEvents = 0;
  // Names of calls dropped because the request offered no tools (by the adapter, or below after max_steps).
  const ignoredTools: string[] = [];
  try {
    response = await readModelResponse(
      deps.model.stream(request, deps.signal, { onActivity: () => void providerEvents++ }),
      deps.signal,
      (text) => deps.emit({ type: 'message.delta', text }),
      (e) => {
        if (e.type !== 'warning') return deps.emit(e);
        ignoredTools.push(...e.tool_names);
        return deps.emit({ type: 'model.warning', code: e.code, message: e.message, call_ids: e.call_ids });
      },
      () => providerEvents,
      deps.model.endpoint,
    );
  } catch (err) {
    return done({ type: 'failed', error: { code: 'model_error', message: (err as Error).message } });
  }
  // One response without usage makes the turn's usage unknown (null), never an undercount.
  if (response.usage === null) state.usage = null;
  else if (state.usage) {
    state.usage.input_tokens += response.usage.input_tokens;
    state.usage.output_tokens += response.usage.output_tokens;
  }
  if (response.status === 'aborted' || deps.signal.aborted) return done({ type: 'cancelled', calls: [] });
  if (response.status === 'failed') return done({ type: 'failed', error: response.error ?? { code: 'model_error', message: 'the model request failed' } });

  if (response.status === 'incomplete') {
    const cut = decideCutRetry(state.cutRetried, response.incompleteReason);
    if (cut.type === 'retry') {
      state.cutRetried = true;
      state.transcript.push(developerMessage(cut.instruction)); // the cut response itself is dropped
      return done({ type: 'run_again' });
    }
    state.lastText = messageText(response.items);
    if (state.lastText) await deps.emit({ type: 'message.completed', text: state.lastText });
    // Keep only items that stay valid without outputs (no half-finished function calls).
    state.transcript.push(...response.items.filter((i) => i.type === 'message' || i.type === 'reasoning'));
    return done({ type: 'completed', stopReason: cut.stopReason });
  }

  const normalized = normalizeOutputItems(response.items);
  for (const line of normalized.skipped) await deps.emit({ type: 'turn.warning', code: 'invalid_output_item', message: line });
  let items = normalized.items;
  const text = messageText(items);
  if (text) {
    state.lastText = text;
    await deps.emit({ type: 'message.completed', text });
  }
  let chainable = true;
  if (hasCalls(items) && state.toolsDisabled) {
    // The final request after max_steps offered no tools: its calls are never run nor paired into
    // the transcript; the answer is its text (policies/max-steps.ts). The provider's stored copy
    // of this response keeps the calls without outputs, so it is not chained (previous_response_id):
    // a continuation sends this answer as input instead.
    const ignored = ignoredCalls(items);
    ignoredTools.push(...ignored.toolNames);
    await deps.emit({ type: 'model.warning', code: 'tool_calls_ignored', message: ignored.message, call_ids: ignored.callIds });
    items = ignored.kept;
    chainable = false;
  }
  if (hasCalls(items)) {
    state.usedTools = true;
    state.toolRounds++;
    state.round = { items, afterSeq: deps.lastSeq(), ...(response.responseId ? { responseId: response.responseId } : {}) };
    await deps.checkpoint(state);
    return { state, next: await dispatchPendingRound(state, deps) };
  }

  state.transcript.push(...items);
  if (chainable) recordResponseId(state, response.responseId, state.transcript.length);
  if (!text) {
    const empty = decideEmptyResponse(state);
    if (empty.type === 'nudge') {
      state.nudged = true;
      state.transcript.push(developerMessage(empty.instruction));
      return done({ type: 'run_again' });
    }
    state.lastText = '';
    // An answer of only calls to tools that were not offered: the ending says so (policies/answerless-end.ts).
    return done({ type: 'completed', stopReason: empty.stopReason, ...(ignoredTools.length > 0 ? { ignoredTools } : {}) });
  }
  const markup = decideToolCallText(state.markupNudged === true, text, deps.tools.toolNames);
  if (markup.type === 'nudge' && !state.toolsDisabled) {
    state.markupNudged = true;
    state.transcript.push(developerMessage(markup.instruction)); // never run as a call
    return done({ type: 'run_again' });
  }
  const decision = await decideFinalAnswer(state, text, deps.finalAnswerGuard, deps.maxSteps);
  if (decision.type === 'accept') return done({ type: 'completed', stopReason: decision.stopReason });
  state.guard = { calls: state.guard.calls + 1, done: decision.guardDone };
  state.onlyTools = decision.onlyTools;
  state.transcript.push(developerMessage(decision.instruction));
  return done({ type: 'run_again' });
}
