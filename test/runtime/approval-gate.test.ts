/**
 * The tool contract's `needsApproval` through the loop (real openai SDK, scripted Responses
 * server, the store-backed gate on a real in-memory SQLite approval store): a predicate sees the
 * validated params and `{callId, turn}` and decides per call; the turn's policy `never` waives it
 * and `always` forces it; a predicate that throws asks rather than running unasked; a paused run
 * ends `waiting` with its round kept, and resumed with the decisions it runs them.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TurnEvent } from '../../src/runtime/events.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteApprovalStore } from '../../src/store/sqlite-approval-store.js';
import { createTurnApprovalGate } from '../../src/turns/approvals/turn-gate.js';
import type { ApprovalPolicy } from '../../src/turns/approvals/policy.js';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';

function setup(policy: ApprovalPolicy = 'none', needsApproval?: Parameters<typeof defineWorkerTool>[0]['needsApproval']) {
  const ran: string[] = [];
  const seen: { params: unknown; callId: string; turn: unknown }[] = [];
  const remove = defineWorkerTool({
    name: 'remove',
    description: 'Remove a path',
    schema: z.object({ path: z.string() }),
    executionMode: 'sequential',
    needsApproval: needsApproval ?? ((p, ctx) => {
      seen.push({ params: p, callId: ctx.callId, turn: ctx.turn });
      return p.path.startsWith('/important');
    }),
    describeActivity: (p) => `Removing ${p.path}`,
    execute: async (p) => {
      ran.push(p.path);
      return textResult(`removed ${p.path}`);
    },
  });
  const store = new SqliteApprovalStore(openDatabase(':memory:'));
  const gate = createTurnApprovalGate({ store, turnId: 't1', policy, timeoutS: 60, turnContext: { who: 'ctx' } });
  return { remove, store, gate, ran, seen };
}

const types = (events: TurnEvent[]) => events.map((e) => e.type);

describe('needsApproval on a tool', () => {
  it('asks for the calls its predicate selects; the others of the response run; the run ends waiting', async () => {
    const { remove, gate, ran, seen } = setup();
    const { result, events } = await runScriptedTurn({
      tools: [remove],
      approvals: gate,
      script: [{ output: [functionCall('remove', { path: '/tmp/x' }, { callId: 'c1' }), functionCall('remove', { path: '/important/y' }, { callId: 'c2' })] }],
    });
    expect(result.status).toBe('waiting');
    expect(ran).toEqual(['/tmp/x']);
    expect(seen).toEqual([
      { params: { path: '/tmp/x' }, callId: 'c1', turn: { who: 'ctx' } },
      { params: { path: '/important/y' }, callId: 'c2', turn: { who: 'ctx' } },
    ]);
    expect(events.find((e) => e.type === 'approval.requested')).toMatchObject({ call_id: 'c2', name: 'remove', label: 'Removing /important/y', arguments: { path: '/important/y' } });
    expect(types(events)).not.toContain('turn.completed');
    expect(result.state!.round!.items.map((i) => (i as { call_id?: string }).call_id)).toEqual(['c1', 'c2']);
  });

  it('resumed with the decision recorded, runs the approved call with the edited arguments and finishes the round', async () => {
    const { remove, store, gate, ran } = setup();
    const first = await runScriptedTurn({
      tools: [remove],
      approvals: gate,
      script: [{ output: [functionCall('remove', { path: '/important/y' }, { callId: 'c2' })] }],
    });
    expect(first.result.status).toBe('waiting');
    await store.decide('t1', 'c2', { decision: 'approve', reason: null, edited_arguments: { path: '/important/only-this' }, decided_at: new Date().toISOString(), decided_by: 'client' });
    const second = await runScriptedTurn({
      tools: [remove],
      approvals: gate,
      resume: { state: first.result.state!, priorCalls: new Map() },
      script: [{ output: [message('done')] }],
    });
    expect(second.result).toMatchObject({ status: 'completed', outputText: 'done' });
    expect(ran).toEqual(['/important/only-this']);
    expect(types(second.events)).not.toContain('approval.requested');
    const sent = second.server.requests[0].body.input as { type: string; call_id?: string; arguments?: string; output?: string }[];
    expect(sent.find((i) => i.type === 'function_call')!.arguments).toBe('{"path":"/important/only-this"}');
    expect(sent.find((i) => i.type === 'function_call_output')!.output).toBe('removed /important/only-this');
  });

  it('policy "never" waives the predicate; "always" forces a tool that never asks', async () => {
    const waived = setup({ remove: 'never' });
    const r1 = await runScriptedTurn({
      tools: [waived.remove],
      approvals: waived.gate,
      script: [{ output: [functionCall('remove', { path: '/important/z' })] }, { output: [message('ok')] }],
    });
    expect(r1.result.status).toBe('completed');
    expect(waived.ran).toEqual(['/important/z']);
    expect(waived.seen).toEqual([]);

    const forced = setup({ remove: 'always' }, false);
    const r2 = await runScriptedTurn({ tools: [forced.remove], approvals: forced.gate, script: [{ output: [functionCall('remove', { path: '/tmp/a' })] }] });
    expect(r2.result.status).toBe('waiting');
    expect(forced.ran).toEqual([]);
  });

  it('a predicate that throws asks instead of running the call', async () => {
    const { remove, gate, ran } = setup('none', () => {
      throw new Error('cannot decide');
    });
    const r = await runScriptedTurn({ tools: [remove], approvals: gate, script: [{ output: [functionCall('remove', { path: '/tmp/b' })] }] });
    expect(r.result.status).toBe('waiting');
    expect(ran).toEqual([]);
    expect(types(r.events)).toContain('approval.requested');
  });
});
