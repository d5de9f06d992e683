/**
 * When the loop stores checkpoints: mid-round (before any call runs), after a round only when the
 * event log cannot rebuild it, and once at the end — and that a round the log rebuilds really is
 * rebuilt: resuming from its mid-round checkpoint with the calls' `tool.completed` events gives
 * the same next request, without running the tool again.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TurnEvent } from '../../src/runtime/events.js';
import type { NextStep, PriorCall } from '../../src/runtime/round-types.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { parseTurnState, serializeTurnState, type TurnState } from '../../src/runtime/turn-state.js';
import { safeStringify } from '../../src/store/safe-json.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, message } from '../support/scripted-responses-server.js';

/** A copy of what a checkpoint stores (the state as serialized, its transcript), taken when it is stored. */
interface Saved { pending: boolean; next: NextStep['type'] | undefined; state: TurnState }
const copy = (s: TurnState): TurnState => parseTurnState(serializeTurnState(s), structuredClone(s.transcript));

function recorder() {
  const saved: Saved[] = [];
  const checkpoint = async (s: TurnState, next?: NextStep) => void saved.push({ pending: s.round !== undefined, next: next?.type, state: copy(s) });
  return { saved, checkpoint };
}

/** A tool that writes (not read-only) and counts its runs; `fail` makes it throw. */
function counter(fail = false) {
  let runs = 0;
  const tool = defineWorkerTool({
    name: 'note', description: 'Write a note', schema: z.object({ text: z.string() }), executionMode: 'sequential',
    describeActivity: (p) => `Note ${p.text}`,
    execute: async (p) => {
      runs++;
      if (fail) throw new Error(`cannot write ${p.text}`);
      return textResult(`noted ${p.text}`);
    },
  });
  return { tool, runs: () => runs };
}

/** The prior calls a resume reads from the log (events as the event log stores them: safeStringify). */
function priorFrom(events: TurnEvent[], ids: string[]): Map<string, PriorCall> {
  const m = new Map<string, PriorCall>();
  for (const e of events) {
    if (e.type !== 'tool.completed' || !ids.includes(e.call_id)) continue;
    const stored = JSON.parse(safeStringify(e).json) as typeof e;
    m.set(e.call_id, { state: 'completed', output: stored.output, isError: stored.is_error });
  }
  return m;
}

const weather = defineWorkerTool({
  name: 'get_weather', description: 'Get the current weather at a specific location', schema: z.object({ location: z.string() }),
  executionMode: 'parallel', isReadOnly: true, describeActivity: (p) => `weather ${p.location}`, deferLoading: true,
  execute: async (p) => textResult(`sunny in ${p.location}`),
});
const lookup = defineWorkerTool({
  name: 'lookup', description: 'Look something up', schema: z.object({ q: z.string() }),
  executionMode: 'parallel', isReadOnly: true, describeActivity: (p) => `lookup ${p.q}`,
  execute: async (p) => textResult(`found ${p.q}`),
});

const script = () => [
  { output: [functionCall('note', { text: 'a' }, { callId: 'c1' })] },
  { output: [functionCall('note', { text: 'b' }, { callId: 'c2' })] },
  { output: [message('done')] },
];

describe('checkpoints of a turn', () => {
  it('a round whose calls all succeed is not checkpointed after it: one checkpoint a round, the next one carries its items', async () => {
    const { tool } = counter();
    const { saved, checkpoint } = recorder();
    const { result } = await runScriptedTurn({ tools: [tool], script: script(), checkpoint });
    expect(result.status).toBe('completed');
    expect(saved.map((s) => [s.pending, s.next])).toEqual([
      [true, undefined], // round 1's response, before its call runs
      [true, undefined], // round 2's response: the transcript holds round 1's call and output
      [false, 'completed'], // the final state
    ]);
    expect(saved[1].state.transcript.slice(1)).toEqual([
      { type: 'function_call', call_id: 'c1', name: 'note', arguments: '{"text":"a"}' },
      { type: 'function_call_output', call_id: 'c1', output: 'noted a' },
    ].map((i) => expect.objectContaining(i)));
  });

  it('a round with a failed call is checkpointed after it (the circuit breaker counted the failure, the log does not)', async () => {
    const { tool } = counter(true);
    const { saved, checkpoint } = recorder();
    await runScriptedTurn({ tools: [tool], script: script(), checkpoint });
    expect(saved.map((s) => [s.pending, s.next])).toEqual([
      [true, undefined],
      [false, undefined], // after round 1
      [true, undefined],
      [false, undefined], // after round 2
      [false, 'completed'],
    ]);
    expect(saved[1].state.breaker?.failures).toHaveLength(1);
  });

  it('resumed from the mid-round checkpoint of a round the log rebuilds: the same next request, the tool not run again', async () => {
    const first = counter();
    const { saved, checkpoint } = recorder();
    const events: TurnEvent[] = [];
    const whole = await runScriptedTurn({ tools: [first.tool], script: script(), checkpoint, onEvent: (e) => void events.push(e) });
    // As after a crash during round 3's request: the last checkpoint is round 2's mid-round one,
    // and the log holds round 2's tool.completed.
    const cp = saved[1].state;
    const done = events.find((e): e is Extract<TurnEvent, { type: 'tool.completed' }> => e.type === 'tool.completed' && e.call_id === 'c2')!;
    const priorCalls = new Map<string, PriorCall>([['c2', { state: 'completed', output: done.output, isError: done.is_error }]]);
    const again = counter();
    const resumed = await runScriptedTurn({ tools: [again.tool], script: [{ output: [message('done')] }], resume: { state: cp, priorCalls } });
    expect(again.runs()).toBe(0);
    expect(resumed.result).toMatchObject({ status: 'completed', outputText: 'done', steps: 3 });
    expect(resumed.server.requests[0].body.input).toEqual(whole.server.requests[2].body.input);
    // (The answer itself is a new response, with ids of its own.)
    expect(resumed.result.transcript.slice(0, -1)).toEqual(whole.result.transcript.slice(0, -1));
    expect(resumed.result.state!.repeatStreak).toEqual(whole.result.state!.repeatStreak);
    expect(resumed.result.state!.toolStats).toEqual(whole.result.state!.toolStats);
  });

  it('a round whose client tool_search call loaded deferred tools is checkpointed after it (the log does not say what it loaded): resumed there, the tools stay loaded', async () => {
    const { saved, checkpoint } = recorder();
    const events: TurnEvent[] = [];
    const script = [
      { output: [functionCall('tool_search', { query: 'weather' }, { callId: 's1' })] },
      { output: [functionCall('get_weather', { location: 'Paris' }, { callId: 'w1' })] },
      { output: [message('done')] },
    ];
    const whole = await runScriptedTurn({ tools: [lookup, weather], script, checkpoint, onEvent: (e) => void events.push(e) });
    expect(whole.result.status).toBe('completed');
    const names = (r: any) => (r.body.tools ?? []).map((t: any) => t.name).sort();
    expect(names(whole.server.requests[1])).toEqual(['get_weather', 'lookup', 'tool_search']);
    // Crash during request 2 (before its response): the last checkpoint stored is round 1's last one.
    const cp = saved.filter((s) => s.state.steps === 1).at(-1)!.state;
    expect(cp.round).toBeUndefined(); // stored after the round
    const resumed = await runScriptedTurn({
      tools: [lookup, weather], script: script.slice(1), resume: { state: cp, priorCalls: priorFrom(events, ['s1']) },
    });
    // The request made again should offer what the first run's request 2 offered.
    expect(names(resumed.server.requests[0])).toEqual(names(whole.server.requests[1]));
    expect(resumed.result.state!.loaded).toEqual(whole.result.state!.loaded);
  });

  it('a tool output with a lone surrogate is made well-formed (U+FFFD) in the transcript as in the log: the round rebuilt from the log is the same', async () => {
    const half = defineWorkerTool({
      name: 'half', description: 'Cut text', schema: z.object({ q: z.string() }), executionMode: 'sequential', describeActivity: () => 'cut',
      execute: async () => textResult('emoji half: \ud83d'),
    });
    const { saved, checkpoint } = recorder();
    const events: TurnEvent[] = [];
    const script = [
      { output: [functionCall('half', { q: 'a' }, { callId: 'h1' })] },
      { output: [message('done')] },
    ];
    const whole = await runScriptedTurn({ tools: [half], script, checkpoint, onEvent: (e) => void events.push(e) });
    const cp = saved.filter((s) => s.state.steps === 1).at(-1)!.state;
    expect(cp.round).toBeDefined();
    const resumed = await runScriptedTurn({ tools: [half], script: script.slice(1), resume: { state: cp, priorCalls: priorFrom(events, ['h1']) } });
    expect(resumed.result.transcript.slice(0, -1)).toEqual(whole.result.transcript.slice(0, -1));
    expect(whole.result.transcript).toContainEqual(expect.objectContaining({ type: 'function_call_output', output: 'emoji half: \ufffd' }));
  });
});
