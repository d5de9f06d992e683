/**
 * The clarify family and its policy: offered in main turns that enable it, never in workflow task
 * turns; a turn's policy (chosen by a service) may keep the turn going instead of ending it.
 */
import { describe, expect, it } from 'vitest';
import { assembleTools, WORKFLOW_TASK_FAMILIES } from '../../../src/assembly/assemble.js';
import { clarifyFamily } from '../../../src/tools/clarify/index.js';
import type { ClarifyPolicyResolver, ClarifyQuestion } from '../../../src/tools/clarify/index.js';
import { createClarifyTool } from '../../../src/tools/clarify/clarify-tool.js';
import { dispatchRound } from '../../../src/runtime/dispatch.js';
import { CircuitBreaker } from '../../../src/runtime/circuit-breaker.js';
import type { TurnEvent } from '../../../src/runtime/events.js';
import { turnContext } from '../computer/support.js';

async function ask(turn: ReturnType<typeof turnContext>, args: unknown) {
  const events: TurnEvent[] = [];
  const tool = createClarifyTool();
  const res = await dispatchRound([{ callId: 'c1', name: 'clarify', arguments: JSON.stringify(args) }], {
    tools: new Map([['clarify', tool]]),
    signal: new AbortController().signal,
    turnContext: turn,
    emit: async (e) => {
      events.push(e);
    },
    breaker: new CircuitBreaker(),
  });
  return { res, events };
}

describe('clarify family', () => {
  it('is assembled in main turns that enable it and refused in workflow task turns with a reason', async () => {
    expect(clarifyFamily.create(turnContext('/tmp/x', { families: ['clarify'] }))).toMatchObject({ tools: [{ name: 'clarify' }] });
    expect(clarifyFamily.create(turnContext('/tmp/x', { families: ['todo'] }))).toEqual({ unavailable: 'not enabled for this turn' });
    expect(clarifyFamily.create({ ...turnContext('/tmp/x', { families: ['clarify'] }), kind: 'workflow_task' })).toEqual({ unavailable: 'not allowed in workflow task turns' });
    const task = await assembleTools({ ...turnContext('/tmp/x', { families: ['clarify'] }), kind: 'workflow_task' }, WORKFLOW_TASK_FAMILIES);
    expect(task.tools.map((t) => t.name)).not.toContain('clarify');
  });

  it('by default ends the turn with stop reason clarify and the question as output text', async () => {
    const { res, events } = await ask(turnContext('/tmp/x', { families: ['clarify'] }), { question: 'Which region?', choices: ['eu'] });
    expect(res).toMatchObject({ terminated: true, ending: { stopReason: 'clarify', outputText: 'Which region?' } });
    expect(events.find((e) => e.type === 'presentation')).toMatchObject({ event: { type: 'clarify', question: 'Which region?', choices: [{ label: 'eu' }] } });
  });

  it('under a continue policy records the question and the turn goes on with the policy output', async () => {
    const asked: ClarifyQuestion[] = [];
    const clarifyPolicy: ClarifyPolicyResolver = (turn) =>
      turn.agentId === 'job-agent' ? { type: 'continue', onAsked: async (q) => (asked.push(q), 'Asked; the answer will arrive as a message.') } : undefined;
    const turn = { ...turnContext('/tmp/x', { families: ['clarify'], agentId: 'job-agent' }), services: { clarifyPolicy } };
    const { res, events } = await ask(turn, { question: 'Deploy now?' });
    expect(res.terminated).toBe(false);
    expect(res.outcomes[0]).toMatchObject({ isError: false, outputText: 'Asked; the answer will arrive as a message.' });
    expect(asked).toEqual([{ question: 'Deploy now?', choices: [] }]);
    expect(events.some((e) => e.type === 'presentation')).toBe(true);
  });

  it('rejects an empty question and over-long choices before anything is shown', async () => {
    for (const args of [{ question: '' }, { question: 'q', choices: ['x'.repeat(201)] }, { question: 'x'.repeat(2001) }]) {
      const { res, events } = await ask(turnContext('/tmp/x', { families: ['clarify'] }), args);
      expect(res.outcomes[0].isError).toBe(true);
      expect(res.terminated).toBe(false);
      expect(events.some((e) => e.type === 'presentation')).toBe(false);
    }
  });
});
