/**
 * `approvalPossible` (src/turns/approvals/policy.ts) lets the approval gate skip a call without
 * validating it: it must say "possible" for every policy and tool under which `requiresApproval`
 * can say yes for some arguments — checked here over every combination.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { approvalPossible, requiresApproval, type ApprovalPolicy } from '../../src/turns/approvals/policy.js';

const tool = (o: { destructive?: boolean; needsApproval?: boolean | ((p: { path: string }) => boolean) }) =>
  defineWorkerTool({
    name: 'remove', description: 'Remove a path', schema: z.object({ path: z.string() }), executionMode: 'sequential', describeActivity: (p) => `Removing ${p.path}`,
    ...(o.destructive ? { isDestructive: true } : {}),
    ...(o.needsApproval !== undefined ? { needsApproval: o.needsApproval } : {}),
    execute: async () => textResult('ok'),
  });

const policies: ApprovalPolicy[] = ['none', 'destructive', { remove: 'always' }, { remove: 'never' }, { other: 'always' }];
const tools = {
  plain: tool({}),
  destructive: tool({ destructive: true }),
  asks: tool({ needsApproval: true }),
  neverAsks: tool({ needsApproval: false }),
  predicate: tool({ needsApproval: (p) => p.path.startsWith('/important') }),
};
const params = [{ path: '/tmp/a' }, { path: '/important/b' }];

describe('approvalPossible', () => {
  for (const policy of policies) {
    for (const [name, t] of Object.entries(tools)) {
      it(`${JSON.stringify(policy)} × ${name}: false only where no arguments need approval`, async () => {
        const any = (await Promise.all(params.map((p) => requiresApproval(policy, t, p, { callId: 'c', turn: null })))).some(Boolean);
        if (!approvalPossible(policy, t)) expect(any).toBe(false);
        if (any) expect(approvalPossible(policy, t)).toBe(true);
      });
    }
  }

  it('is false for the common case that lets the gate skip validation: no policy entry, not destructive, no needsApproval', () => {
    expect(approvalPossible('none', tools.plain)).toBe(false);
    expect(approvalPossible('destructive', tools.plain)).toBe(false);
    expect(approvalPossible({ remove: 'never' }, tools.asks)).toBe(false);
    expect(approvalPossible('none', tools.predicate)).toBe(true);
  });
});
