/**
 * The dispatch phase of a round: answer every call of `state.round` exactly once, append the
 * round (response items, then outputs in the model's order) to the transcript, and decide what
 * follows (cancelled, terminated, max steps, run again).
 *
 * Resumed rounds (`deps.priorCalls`, read from the event log): a call whose `tool.completed` was
 * stored keeps that output and is not run again (no event repeated); a call that had started but
 * not completed runs again when its tool is read-only, and otherwise is NOT run again — it gets
 * {@link interruptedOutput} and a `tool.completed` with status `interrupted`. A stored call whose
 * `tool.completed` has `ends_turn` ends the turn again that way: the calls after it are not run,
 * and those the log has no `tool.completed` for are reported as in the first run (a `tool.started`
 * unless one is stored, then a `tool.completed` with `PRIOR_TERMINATE`), so no event repeats.
 *
 * Approvals (`deps.approvals`, ./approval-gate.ts): calls waiting for a decision are held back,
 * with every call after the first of them (the model's order is kept: a later call may rely on an
 * earlier one), while the calls before it run; the round then stays pending (next step `waiting`)
 * and is dispatched again, with the calls already answered taken from the event log, once every
 * decision is in.
 */
import type { CustomToolCallItem, FunctionCallItem, ToolSearchCallItem, TranscriptItem } from '../model/port.js';
import { genericStartedLabel, interruptedLabel, notRunLabel } from './call-labels.js';
import { gateCalls, type GateVerdicts } from './approval-gate.js';
import { dispatchRound, emitNotRun, NOT_STARTED_CANCEL, PRIOR_TERMINATE, type CallOutcome, type FunctionCallRequest } from './dispatch.js';
import { decideAfterToolRound } from './policies/max-steps.js';
import { advanceStreak, decideRepeats } from './policies/repeated-call.js';
import { toolIdentity } from './tool-identity.js';
import { buildProviderTools } from './provider-tools.js';
import { developerMessage } from './transcript-items.js';
import type { NextStep, RoundDeps } from './round-types.js';
import { searchAndLoad } from './tool-search.js';
import type { TurnState } from './turn-state.js';

/** The output of a non-read-only call cut by a crash or a graceful stop (it is not run again). */
export function interruptedOutput(tool: string): string {
  return `Error: interrupted by a service restart while ${tool} was running; it may or may not have taken effect — check before retrying.`;
}

/**
 * Answer of calls in a pending round with tools disabled: round.ts no longer puts such calls in a
 * round (they are ignored with a `model.warning`), so only a round checkpointed before that reaches it.
 */
const TOOLS_DISABLED = 'Error: no more tool calls are allowed in this turn; answer with your final answer.';

/**
 * Ask the turn's approval gate about the calls about to run; approved calls with edited arguments
 * get them here (also in the round's items, so the transcript shows the call that ran).
 */
async function gateRound<TTurn>(state: TurnState, deps: RoundDeps<TTurn>, toRun: { index: number; call: FunctionCallRequest }[], refused: (k: number) => boolean): Promise<GateVerdicts | undefined> {
  if (!deps.approvals || state.toolsDisabled) return undefined;
  const only = state.onlyTools;
  const verdicts = await gateCalls(toRun.map((r) => r.call), deps.tools.callable, deps.approvals, {
    signal: deps.signal,
    emit: deps.emit,
    refused: (k) => refused(k) || (only !== undefined && !only.includes(toolIdentity(toRun[k].call))),
  });
  verdicts.edited.forEach((args, k) => {
    if (args === undefined) return;
    toRun[k].call.arguments = args;
    // Replaced, not mutated: transcript items are immutable once made (request building caches them).
    const items = state.round!.items;
    const at = items.findIndex((i) => i.type === 'function_call' && i.call_id === toRun[k].call.callId);
    if (at >= 0) items[at] = { ...(items[at] as FunctionCallItem), arguments: args };
  });
  return verdicts;
}

function displayName(c: FunctionCallItem): string {
  return c.namespace ? `${c.namespace}.${c.name}` : c.name;
}

export async function dispatchPendingRound<TTurn>(state: TurnState, deps: RoundDeps<TTurn>): Promise<NextStep> {
  const { items, responseId } = state.round!;
  const prior = deps.priorCalls;
  const { tools } = deps;
  const statsBefore = { ...state.toolStats, repairs: { ...state.toolStats.repairs } }; // restored when the round pauses for approvals
  // A client tool_search function call loads deferred tools: not in the event log, so such a round is not rebuildable.
  const loadedBefore = tools.loaded.size;

  const searchOutputs: TranscriptItem[] = items
    .filter((i): i is ToolSearchCallItem => i.type === 'tool_search_call' && i.execution === 'client')
    .map((sc) => {
      const args = (sc.arguments ?? {}) as Record<string, unknown>;
      const query = Object.values(args).filter((v) => typeof v === 'string').join(' ');
      const { matches } = searchAndLoad(query, tools.deferred, tools.loaded);
      const defs = buildProviderTools(matches.map((m) => m.tool), { toolSearchMode: 'hosted' }).filter((t) => t.type !== 'tool_search');
      return { type: 'tool_search_output', call_id: sc.call_id, execution: 'client', status: 'completed', tools: defs };
    });

  // No custom (grammar) tools are offered; a custom_tool_call still gets exactly one output.
  const customOutputs: TranscriptItem[] = [];
  for (const cc of items.filter((i): i is CustomToolCallItem => i.type === 'custom_tool_call')) {
    const output = `Error: unknown tool ${cc.name}. Available tools: ${[...tools.callable.keys()].sort().join(', ') || '(none)'}.`;
    const p = prior?.get(cc.call_id);
    if (!p) await deps.emit({ type: 'tool.started', call_id: cc.call_id, name: cc.name, label: genericStartedLabel(cc.name), arguments: null });
    if (p?.state !== 'completed') {
      await deps.emit({ type: 'tool.completed', call_id: cc.call_id, name: cc.name, label: notRunLabel(cc.name, 'unknown_tool'), is_error: true, output });
    }
    customOutputs.push({ type: 'custom_tool_call_output', call_id: cc.call_id, output });
    state.toolStats.calls++;
    state.toolStats.errors++;
  }

  const calls = items.filter((i): i is FunctionCallItem => i.type === 'function_call');
  const outcomes = new Array<CallOutcome | undefined>(calls.length);
  const toRun: { index: number; call: FunctionCallRequest }[] = [];
  // A call whose stored tool.completed says it ended the turn (resumed round): the turn ends the
  // same way, and calls not answered yet are not started (as in the first run).
  let priorEnding: { stopReason: string; outputText?: string } | undefined;
  for (const [index, c] of calls.entries()) {
    const p = prior?.get(c.call_id);
    if (p?.state === 'completed') {
      outcomes[index] = { callId: c.call_id, outputText: p.output, item: { type: 'function_call_output', call_id: c.call_id, output: p.output }, isError: p.isError, state: 'completed' };
      priorEnding ??= p.endsTurn;
      continue;
    }
    if (priorEnding) {
      // Reported like the first run reports it (tool.started + tool.completed), minus what the
      // log already holds: a crash may have cut the round right after the ending call's event.
      await emitNotRun(deps.emit, { callId: c.call_id, name: c.name, namespace: c.namespace }, PRIOR_TERMINATE, { started: p === undefined });
      outcomes[index] = { callId: c.call_id, outputText: PRIOR_TERMINATE, item: { type: 'function_call_output', call_id: c.call_id, output: PRIOR_TERMINATE }, isError: true, state: 'not_started' };
      continue;
    }
    const tool = tools.callable.get(displayName(c));
    if (p?.state === 'started' && tool && !tool.isReadOnly) {
      const output = interruptedOutput(displayName(c));
      await deps.emit({ type: 'tool.completed', call_id: c.call_id, name: displayName(c), label: interruptedLabel(displayName(c)), is_error: true, output, status: 'interrupted' });
      outcomes[index] = { callId: c.call_id, outputText: output, item: { type: 'function_call_output', call_id: c.call_id, output }, isError: true, state: 'completed' };
      continue;
    }
    toRun.push({ index, call: { callId: c.call_id, name: c.name, arguments: c.arguments ?? '', ...(c.namespace ? { namespace: c.namespace } : {}) } });
  }

  // Repeated identical calls (policies/repeated-call.ts) are judged over all calls of the round.
  const repeatCalls = calls.map((c) => ({ identity: toolIdentity(c), arguments: c.arguments ?? '' }));
  const repeats = decideRepeats(state.repeatStreak, repeatCalls);
  // Approvals (approval-gate.ts): waiting calls are held back, and so is every call after the
  // first one that waits (the model asked for them in this order: a later call may rely on an
  // earlier one having run); the calls before it run now.
  const gated = await gateRound(state, deps, toRun, (k) => repeats[toRun[k].index] !== undefined);
  const firstWaiting = gated?.waiting.size ? Math.min(...gated.waiting) : toRun.length;
  const held = toRun.map((_, k) => k).filter((k) => k >= firstWaiting);
  const runNow = toRun.slice(0, firstWaiting);
  const result = await dispatchRound(
    runNow.map((r) => r.call),
    {
      refusals: runNow.map((r) => repeats[r.index]),
      rejections: runNow.map((r) => gated?.refusals[toRun.indexOf(r)]),
      tools: tools.callable,
      signal: deps.signal,
      turnContext: deps.turnContext,
      emit: deps.emit,
      parallelLimit: deps.options.parallelLimit,
      defaultTimeoutMs: deps.options.toolTimeoutMs,
      maxCallsPerResponse: deps.options.maxToolCallsPerResponse,
      outputMaxChars: deps.options.toolOutputMaxChars,
      ...(state.onlyTools ? { onlyTools: state.onlyTools } : {}),
      breaker: deps.breaker,
      ...(state.toolsDisabled ? { refuseAllWith: TOOLS_DISABLED } : {}),
    },
  );
  result.outcomes.forEach((o, k) => (outcomes[runNow[k].index] = o));
  if (gated?.waiting.size) {
    const ending = result.cancelled || deps.signal.aborted ? NOT_STARTED_CANCEL : result.terminated || priorEnding ? PRIOR_TERMINATE : undefined;
    // Calls that ran are in the event log (resumed as prior calls); the round stays pending.
    if (ending === undefined) {
      state.toolStats = statsBefore;
      return { type: 'waiting', reason: 'approval' };
    }
    for (const k of held) {
      const i = toRun[k].index;
      // A call held back for a decision that will never come still shows on the stream when the
      // turn ended by another call; a cancelled turn lists it in turn.cancelled (not_started).
      if (ending === PRIOR_TERMINATE) await emitNotRun(deps.emit, toRun[k].call, ending, { started: prior?.get(toRun[k].call.callId) === undefined });
      outcomes[i] = { callId: calls[i].call_id, outputText: ending, item: { type: 'function_call_output', call_id: calls[i].call_id, output: ending }, isError: true, state: 'not_started' };
    }
  }
  const done = outcomes as CallOutcome[];
  state.repeatStreak = advanceStreak(state.repeatStreak, repeatCalls, done.map((c, i) => ({ output: c.outputText, refused: repeats[i] !== undefined })));

  state.transcript.push(...items);
  if (responseId) {
    state.lastResponseId = responseId;
    state.coveredItems = state.transcript.length;
  }
  state.transcript.push(...searchOutputs, ...customOutputs, ...done.map((c) => c.item));
  state.round = undefined;
  state.loaded = [...tools.loaded];
  state.breaker = deps.breaker.snapshot();
  for (const c of done) {
    state.toolStats.calls++;
    if (c.isError) state.toolStats.errors++;
    if (c.repaired) state.toolStats.repairs[c.repaired] = (state.toolStats.repairs[c.repaired] ?? 0) + 1;
  }

  if (result.cancelled || deps.signal.aborted) return { type: 'cancelled', calls: done.map((c) => ({ call_id: c.callId, state: c.state })) };
  if (result.terminated || priorEnding) {
    const ending = priorEnding ?? result.ending;
    if (ending?.outputText !== undefined) state.lastText = ending.outputText;
    return { type: 'completed', stopReason: ending?.stopReason ?? 'terminated' };
  }
  if (state.toolsDisabled) return { type: 'completed', stopReason: 'max_steps' };
  const next = decideAfterToolRound(state, deps.maxSteps);
  if (next.type === 'disable_tools') {
    state.toolsDisabled = true;
    state.onlyTools = undefined;
    state.transcript.push(developerMessage(next.instruction));
    return { type: 'run_again' };
  }
  const plain = searchOutputs.length === 0 && customOutputs.length === 0 && ungated(gated) && tools.loaded.size === loadedBefore;
  return plain && done.every(fromLogAlone) ? { type: 'run_again', rebuildable: true } : { type: 'run_again' };
}

/** True when no approval changed the round: nothing waited, nothing was rejected or edited. */
function ungated(g: GateVerdicts | undefined): boolean {
  return !g || (g.waiting.size === 0 && g.refusals.every((r) => r === undefined) && g.edited.every((e) => e === undefined));
}

/**
 * True when resuming the round from its mid-round checkpoint rebuilds this outcome exactly from
 * the event log ({@link dispatchPendingRound} with prior calls): the call ran and succeeded
 * (a failure also counts in the circuit breaker, a repair in the tool stats — neither is in the
 * log), and its `tool.completed` output is the transcript's output (a text, not parts).
 */
function fromLogAlone(c: CallOutcome): boolean {
  return c.state === 'completed' && !c.isError && c.repaired === undefined && c.item.output === c.outputText;
}
