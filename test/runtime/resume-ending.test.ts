/**
 * A tool that ended its turn (`terminate`, e.g. clarify) ends it the same way when the turn is
 * resumed after a crash with that call's `tool.completed` already stored: no new model request,
 * the same stop reason and output text, and the calls after it are not run — but reported on the
 * stream as in the first run, without repeating an event the log already holds.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TurnEvent } from '../../src/runtime/events.js';
import { runTurn } from '../../src/runtime/loop.js';
import type { PriorCall } from '../../src/runtime/round-types.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { initialTurnState } from '../../src/runtime/turn-state.js';
import { createInProcessModel } from '../support/in-process-model.js';

describe('resuming a round whose stored call ended the turn', () => {
  it('ends with that call\'s stop reason and output text, without a model request or running later calls', async () => {
    let ran = 0;
    const after = defineWorkerTool({
      name: 'after',
      description: 'runs after',
      schema: z.object({}),
      executionMode: 'sequential',
      describeActivity: () => 'After',
      execute: async () => (ran++, textResult('ran')),
    });
    const model = createInProcessModel([]);
    const state = initialTurnState([{ type: 'message', role: 'user', content: 'deploy' }]);
    state.steps = 1;
    state.round = {
      items: [
        { type: 'function_call', call_id: 'c_ask', name: 'clarify', arguments: '{"question":"Where?"}' },
        { type: 'function_call', call_id: 'c_after', name: 'after', arguments: '{}' },
      ],
      afterSeq: 2,
    };
    const events: TurnEvent[] = [];
    const result = await runTurn({
      turnId: 't',
      model,
      modelName: 'm',
      input: [],
      tools: [after],
      signal: new AbortController().signal,
      turnContext: {},
      emit: (e) => void events.push(e),
      resume: {
        state,
        priorCalls: new Map([['c_ask', { state: 'completed', output: 'shown', isError: false, endsTurn: { stopReason: 'clarify', outputText: 'Where?' } }]]),
      },
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'clarify', outputText: 'Where?' });
    expect(model.requests).toHaveLength(0);
    expect(ran).toBe(0);
    const outputs = result.transcript.filter((i) => i.type === 'function_call_output');
    expect(outputs).toEqual([
      { type: 'function_call_output', call_id: 'c_ask', output: 'shown' },
      { type: 'function_call_output', call_id: 'c_after', output: 'Error: a prior tool call already ended this turn' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', stop_reason: 'clarify', output_text: 'Where?' });
    // The crash cut the round before the later call was reported: it is reported now, once.
    expect(events.filter((e) => e.type === 'tool.started' || e.type === 'tool.completed')).toEqual([
      { type: 'tool.started', call_id: 'c_after', name: 'after', label: 'Calling after', arguments: null },
      { type: 'tool.completed', call_id: 'c_after', name: 'after', label: 'Did not run after', is_error: true, output: 'Error: a prior tool call already ended this turn' },
    ]);
  });

  it('repeats no event of a later call the log already holds', async () => {
    const ending = { state: 'completed', output: 'shown', isError: false, endsTurn: { stopReason: 'clarify', outputText: 'Where?' } } as const;
    const reported = { state: 'completed', output: 'Error: a prior tool call already ended this turn', isError: true } as const;
    // c_b was reported completely before the crash, c_c only started (its tool.completed was cut).
    const { events, result } = await resume(new Map<string, PriorCall>([['c_ask', ending], ['c_b', reported], ['c_c', { state: 'started' }]]), ['c_b', 'c_c']);
    expect(result).toMatchObject({ status: 'completed', stopReason: 'clarify' });
    expect(events.filter((e) => e.type === 'tool.started' || e.type === 'tool.completed')).toEqual([
      { type: 'tool.completed', call_id: 'c_c', name: 'after', label: 'Did not run after', is_error: true, output: 'Error: a prior tool call already ended this turn' },
    ]);
    expect(result.transcript.filter((i) => i.type === 'function_call_output').map((i) => (i as { call_id: string }).call_id)).toEqual(['c_ask', 'c_b', 'c_c']);
  });
});

/** Resume a round of `clarify` then `after` calls (ids `later`) with `priorCalls` from the log. */
async function resume(priorCalls: Map<string, PriorCall>, later: string[]) {
  const after = defineWorkerTool({
    name: 'after', description: 'runs after', schema: z.object({}), executionMode: 'sequential', describeActivity: () => 'After',
    execute: async () => textResult('ran'),
  });
  const state = initialTurnState([{ type: 'message', role: 'user', content: 'deploy' }]);
  state.steps = 1;
  state.round = {
    items: [
      { type: 'function_call', call_id: 'c_ask', name: 'clarify', arguments: '{"question":"Where?"}' },
      ...later.map((id) => ({ type: 'function_call' as const, call_id: id, name: 'after', arguments: '{}' })),
    ],
    afterSeq: 2,
  };
  const events: TurnEvent[] = [];
  const result = await runTurn({
    turnId: 't', model: createInProcessModel([]), modelName: 'm', input: [], tools: [after],
    signal: new AbortController().signal, turnContext: {}, emit: (e) => void events.push(e),
    resume: { state, priorCalls },
  });
  return { events, result };
}
