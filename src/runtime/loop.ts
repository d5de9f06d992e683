/**
 * The agent loop: `runTurn` runs one turn — model request, dispatch of function calls, repeat —
 * and reports typed {@link TurnEvent}s in order (README.md "SSE events").
 *
 * Rules:
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
 * - Model errors (HTTP errors after SDK retries, `error` / `response.failed` events, a stream cut
 *   mid-way) end the turn `failed` with the provider's code and message; the transcript stays
 *   valid (items of the failed response are not added).
 * - Cancel (`signal`): running tools are aborted, no further tool or request starts, every open
 *   call gets an output, and the turn ends `cancelled`.
 * - `finalAnswerGuard` may send one instruction (more when it says `repeatable`) before the turn
 *   ends, optionally restricting the offered tools.
 * `runTurn` never throws; `emit` is awaited for every event (back-pressure).
 */
import type { CustomToolCallItem, ModelRequest, ToolSearchCallItem } from '../model/port.js';
import { CircuitBreaker } from './circuit-breaker.js';
import type { CompiledTool } from './compiled-tool.js';
import { dispatchRound, type CallOutcome, type FunctionCallRequest } from './dispatch.js';
import type { TurnEvent } from './events.js';
import { normalizeOutputItems } from './function-calls.js';
import { decideEnding } from './policies/answerless-end.js';
import { decideCutRetry } from './policies/cut-retry.js';
import { advanceStreak, decideRepeats, type RepeatStreak } from './policies/repeated-call.js';
import { decideToolCallText } from './policies/tool-call-text.js';
import { toolIdentity } from './tool-identity.js';
import { genericStartedLabel, notRunLabel } from './call-labels.js';
import { readModelResponse } from './model-response.js';
import { buildProviderTools, compileToolSet, providerToolNames } from './provider-tools.js';
import { createToolSearchTool, searchAndLoad, TOOL_SEARCH_NAME } from './tool-search.js';
import type { AnyWorkerAgentTool } from './tool.js';
import type { FinalAnswerGuardVerdict, RunTurnOptions, RunTurnResult, ToolCallStats, TranscriptItem } from './turn-types.js';

export const DEFAULT_MAX_STEPS = 20;

/** Sent (role developer) when max_steps is reached, before the final request without tools. */
export const MAX_STEPS_INSTRUCTION =
  'You have used all tool steps available for this turn. Do not call any tool. Answer now with your final answer based on what you have.';
/** Sent (role developer) once when the model returned nothing after tool use. */
export const EMPTY_RESPONSE_NUDGE =
  'Your last response was empty. Continue: call a tool if you still need one, or give your final answer to the user.';

function messageText(items: TranscriptItem[]): string {
  return items
    .map((i) => {
      if (i.type !== 'message' || i.role !== 'assistant') return '';
      if (typeof i.content === 'string') return i.content;
      return i.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    })
    .join('');
}

function developerMessage(text: string): TranscriptItem {
  return { type: 'message', role: 'developer', content: text };
}

/** Run one turn. See the module doc for the rules. Never throws. */
export async function runTurn<TTurn>(opts: RunTurnOptions<TTurn>): Promise<RunTurnResult> {
  const o = opts.options ?? {};
  const searchMode = o.toolSearchMode ?? 'client';
  const maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
  const transcript: TranscriptItem[] = [...opts.input];
  const usage = { input_tokens: 0, output_tokens: 0 };
  let steps = 0;
  const toolStats: ToolCallStats = { calls: 0, errors: 0, repairs: {} };

  // Serialize every event through one chain so concurrent tools cannot reorder or interleave them.
  let chain: Promise<void> = Promise.resolve();
  const emit = (event: TurnEvent): Promise<void> => {
    chain = chain.then(async () => {
      try {
        await opts.emit(event);
      } catch {
        // emit must not throw; an emitter bug must not break the turn
      }
    });
    return chain;
  };

  const finish = async (result: Omit<RunTurnResult, 'steps' | 'usage' | 'transcript'>, event: TurnEvent): Promise<RunTurnResult> => {
    await emit(event);
    return { ...result, steps, usage: { ...usage }, transcript, toolStats };
  };

  let compiled: CompiledTool[];
  try {
    compiled = compileToolSet(opts.tools);
  } catch (err) {
    await emit({ type: 'turn.started', turn_id: opts.turnId, model: opts.modelName, tools: [], unavailable: opts.unavailable ?? [] });
    const error = { code: 'invalid_tool_set', message: (err as Error).message };
    return finish({ status: 'failed', outputText: '', error }, { type: 'turn.failed', error });
  }

  const loaded = new Set<string>();
  const deferred = compiled.filter((c) => c.tool.deferLoading);
  const callable = new Map<string, AnyWorkerAgentTool>(compiled.map((c) => [c.identity, c.tool]));
  if (deferred.length > 0 && searchMode === 'client' && !callable.has(TOOL_SEARCH_NAME)) {
    callable.set(TOOL_SEARCH_NAME, createToolSearchTool(deferred, loaded));
  }
  let onlyTools: string[] | undefined;
  // Rebuilt only when the loaded set or the tool restriction changes (same object otherwise).
  let cachedTools: { key: string; tools: ReturnType<typeof buildProviderTools> } | undefined;
  const providerTools = () => {
    const key = `${loaded.size}|${onlyTools?.join(',') ?? '*'}`;
    if (cachedTools?.key !== key) {
      cachedTools = { key, tools: buildProviderTools(opts.tools, { toolSearchMode: searchMode, loaded, ...(onlyTools ? { onlyTools } : {}) }) };
    }
    return cachedTools.tools;
  };

  await emit({
    type: 'turn.started',
    turn_id: opts.turnId,
    model: opts.modelName,
    tools: providerToolNames(providerTools()),
    unavailable: opts.unavailable ?? [],
  });

  const breaker = new CircuitBreaker();
  let toolRounds = 0;
  let toolsDisabled = false;
  let usedTools = false;
  let nudged = false;
  let incompleteRetried = false;
  let markupNudged = false;
  let repeatStreak: RepeatStreak | undefined;
  // Names and identities of the turn's tools, for spotting tool calls written as text.
  const toolNames = new Set([...callable.keys(), ...[...callable.values()].map((t) => t.name)]);
  let guardCalls = 0;
  let guardDone = false;
  let lastResponseId: string | undefined;
  let coveredItems = 0;
  let lastText = '';

  const cancelled = (calls: CallOutcome[] = []) =>
    finish(
      { status: 'cancelled', outputText: lastText, lastResponseId },
      { type: 'turn.cancelled', calls: calls.map((c) => ({ call_id: c.callId, state: c.state })) },
    );
  // Ends the turn with `stopReason`: completed, or failed when there is no answer text (answerless-end.ts).
  const completed = (stopReason: string) => {
    const ending = decideEnding(stopReason, lastText);
    if (ending.type === 'failed') {
      return finish({ status: 'failed', outputText: lastText, error: ending.error, lastResponseId }, { type: 'turn.failed', error: ending.error });
    }
    return finish(
      { status: 'completed', outputText: lastText, stopReason, lastResponseId },
      { type: 'turn.completed', output_text: lastText, stop_reason: stopReason, steps, usage: { ...usage } },
    );
  };

  for (;;) {
    if (opts.signal.aborted) return cancelled();
    const request: ModelRequest = {
      model: opts.modelName,
      ...(opts.instructions !== undefined ? { instructions: opts.instructions } : {}),
      input: [...transcript],
      tools: providerTools(),
      toolChoice: toolsDisabled ? 'none' : (opts.toolChoice ?? 'auto'),
      ...(o.maxOutputTokens !== undefined ? { maxOutputTokens: o.maxOutputTokens } : {}),
      ...(lastResponseId !== undefined ? { continuation: { responseId: lastResponseId, coveredItems } } : {}),
    };
    steps++;
    let stream: ReturnType<typeof opts.model.stream>;
    try {
      stream = opts.model.stream(request, opts.signal);
    } catch (err) {
      const error = { code: 'model_error', message: (err as Error).message };
      return finish({ status: 'failed', outputText: lastText, error, lastResponseId }, { type: 'turn.failed', error });
    }
    const response = await readModelResponse(
      stream,
      opts.signal,
      (text) => emit({ type: 'message.delta', text }),
      (e) => emit(e.type === 'warning' ? { type: 'model.warning', code: e.code, message: e.message, call_ids: e.call_ids } : e),
    );
    usage.input_tokens += response.usage.input_tokens;
    usage.output_tokens += response.usage.output_tokens;
    if (response.status === 'aborted' || opts.signal.aborted) return cancelled();
    if (response.status === 'failed') {
      const error = response.error ?? { code: 'model_error', message: 'the model request failed' };
      return finish({ status: 'failed', outputText: lastText, error, lastResponseId }, { type: 'turn.failed', error });
    }
    if (response.status === 'incomplete') {
      const cut = decideCutRetry(incompleteRetried, response.incompleteReason);
      if (cut.type === 'retry') {
        incompleteRetried = true;
        transcript.push(developerMessage(cut.instruction)); // the cut response itself is dropped
        continue;
      }
      lastText = messageText(response.items);
      if (lastText) await emit({ type: 'message.completed', text: lastText });
      // Keep only items that stay valid without outputs (no half-finished function calls).
      transcript.push(...response.items.filter((i) => i.type === 'message' || i.type === 'reasoning'));
      return completed(cut.stopReason);
    }

    // completed
    const normalized = normalizeOutputItems(response.items);
    for (const line of normalized.skipped) await emit({ type: 'turn.warning', code: 'invalid_output_item', message: line });
    transcript.push(...normalized.items);
    if (response.responseId) {
      lastResponseId = response.responseId;
      coveredItems = transcript.length;
    }
    const text = messageText(response.items);
    if (text) {
      lastText = text;
      await emit({ type: 'message.completed', text });
    }
    const functionCalls: FunctionCallRequest[] = normalized.functionCalls;
    const searchCalls: ToolSearchCallItem[] = [];
    const customCalls: CustomToolCallItem[] = [];
    for (const item of normalized.items) {
      if (item.type === 'tool_search_call' && item.execution === 'client') {
        searchCalls.push(item);
      } else if (item.type === 'custom_tool_call') {
        customCalls.push(item);
      }
    }

    if (functionCalls.length === 0 && searchCalls.length === 0 && customCalls.length === 0) {
      if (!text) {
        if (usedTools && !nudged && !toolsDisabled) {
          nudged = true;
          transcript.push(developerMessage(EMPTY_RESPONSE_NUDGE));
          continue;
        }
        lastText = '';
        return completed(toolsDisabled ? 'max_steps' : 'empty_response');
      }
      const markup = decideToolCallText(markupNudged, text, toolNames);
      if (markup.type === 'nudge' && !toolsDisabled) {
        markupNudged = true;
        transcript.push(developerMessage(markup.instruction)); // never run as a call
        continue;
      }
      if (opts.finalAnswerGuard && !guardDone && !toolsDisabled) {
        let verdict: FinalAnswerGuardVerdict = null;
        try {
          verdict = await opts.finalAnswerGuard({ outputText: text, steps });
        } catch {
          verdict = null;
        }
        guardCalls++;
        if (verdict) {
          const repeatable = verdict.repeatable === true;
          if (!repeatable || guardCalls >= maxSteps) guardDone = true;
          onlyTools = verdict.onlyTools;
          transcript.push(developerMessage(verdict.instruction));
          continue;
        }
      }
      return completed(toolsDisabled ? 'max_steps' : 'stop');
    }

    // Tool round.
    usedTools = true;
    toolRounds++;
    const searchOutputs: TranscriptItem[] = searchCalls.map((sc) => {
      const args = (sc.arguments ?? {}) as Record<string, unknown>;
      const query = Object.values(args).filter((v) => typeof v === 'string').join(' ');
      const { matches } = searchAndLoad(query, deferred, loaded);
      const tools = buildProviderTools(matches.map((m) => m.tool), { toolSearchMode: 'hosted' }).filter((t) => t.type !== 'tool_search');
      return { type: 'tool_search_output', call_id: sc.call_id, execution: 'client', status: 'completed', tools };
    });
    transcript.push(...searchOutputs);
    // No custom (grammar) tools are offered; a custom_tool_call still gets exactly one output.
    for (const cc of customCalls) {
      const output = `Error: unknown tool ${cc.name}. Available tools: ${[...callable.keys()].sort().join(', ') || '(none)'}.`;
      await emit({ type: 'tool.started', call_id: cc.call_id, name: cc.name, label: genericStartedLabel(cc.name), arguments: null });
      await emit({ type: 'tool.completed', call_id: cc.call_id, name: cc.name, label: notRunLabel(cc.name, 'unknown_tool'), is_error: true, output });
      transcript.push({ type: 'custom_tool_call_output', call_id: cc.call_id, output });
      toolStats.calls++;
      toolStats.errors++;
    }
    const repeatCalls = functionCalls.map((c) => ({ identity: toolIdentity(c), arguments: c.arguments }));
    const repeats = decideRepeats(repeatStreak, repeatCalls);
    const round = await dispatchRound(functionCalls, {
      refusals: repeats,
      tools: callable,
      signal: opts.signal,
      turnContext: opts.turnContext,
      emit,
      parallelLimit: o.parallelLimit,
      defaultTimeoutMs: o.toolTimeoutMs,
      maxCallsPerResponse: o.maxToolCallsPerResponse,
      outputMaxChars: o.toolOutputMaxChars,
      ...(onlyTools ? { onlyTools } : {}),
      breaker,
      ...(toolsDisabled ? { refuseAllWith: 'Error: no more tool calls are allowed in this turn; answer with your final answer.' } : {}),
    });
    transcript.push(...round.outcomes.map((c) => c.item));
    repeatStreak = advanceStreak(repeatStreak, repeatCalls, round.outcomes.map((c, i) => ({ output: c.outputText, refused: repeats[i] !== undefined })));
    for (const c of round.outcomes) {
      toolStats.calls++;
      if (c.isError) toolStats.errors++;
      if (c.repaired) toolStats.repairs[c.repaired] = (toolStats.repairs[c.repaired] ?? 0) + 1;
    }
    if (round.cancelled || opts.signal.aborted) return cancelled(round.outcomes);
    if (round.terminated) return completed('terminated');
    if (toolsDisabled) return completed('max_steps');
    if (toolRounds >= maxSteps) {
      toolsDisabled = true;
      onlyTools = undefined;
      transcript.push(developerMessage(MAX_STEPS_INSTRUCTION));
    }
  }
}
