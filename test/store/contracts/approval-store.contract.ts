/**
 * Contract suite of {@link ApprovalStore}, run against every engine (test/store/approval-stores.test.ts):
 * a pending approval is stored once per call, a decision is recorded once (concurrent deciders:
 * exactly one wins), expiry is found from the stored `expires_at` for turns not finished.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalDecisionInput, ApprovalStore, NewApproval } from '../../../src/store/approval-store.js';
import type { TurnStore } from '../../../src/store/turn-store.js';
import { newTurn } from './turn-stores.contract.js';

export interface ApprovalPorts {
  approvals: ApprovalStore;
  turns: TurnStore;
  close(): Promise<void>;
}

const ask = (turn_id: string, call_id: string, over: Partial<NewApproval> = {}): NewApproval => ({
  turn_id, call_id, name: 'write_file', arguments: { path: 'a.txt', content: 'x' }, label: 'Writing a.txt',
  requested_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-02T00:00:00.000Z', ...over,
});

const by = (decision: 'approve' | 'reject', over: Partial<ApprovalDecisionInput> = {}): ApprovalDecisionInput => ({
  decision, reason: decision === 'reject' ? 'no' : null, edited_arguments: null, decided_at: '2026-01-01T00:01:00.000Z', decided_by: 'client', ...over,
});

export function describeApprovalStoreContract(engine: string, open: () => Promise<ApprovalPorts>): void {
  const withPorts = (fn: (p: ApprovalPorts) => Promise<void>) => async () => {
    const p = await open();
    try {
      await fn(p);
    } finally {
      await p.close();
    }
  };

  describe(`ApprovalStore contract (${engine})`, () => {
    it('stores a pending approval once per call and lists a turn\'s approvals in request order', withPorts(async ({ approvals }) => {
      const first = await approvals.request(ask('t1', 'c2'));
      expect(first.created).toBe(true);
      expect(first.approval).toEqual({ ...ask('t1', 'c2'), decision: null, reason: null, edited_arguments: null, decided_at: null, decided_by: null });
      expect((await approvals.request(ask('t1', 'c2', { expires_at: '2030-01-01T00:00:00.000Z' }))).created).toBe(false);
      expect((await approvals.get('t1', 'c2'))!.expires_at).toBe('2026-01-02T00:00:00.000Z');
      await approvals.request(ask('t1', 'c1'));
      await approvals.request(ask('t2', 'c1'));
      expect((await approvals.list('t1')).map((a) => a.call_id)).toEqual(['c2', 'c1']);
      expect(await approvals.pendingCount('t1')).toBe(2);
      expect(await approvals.get('t1', 'nope')).toBeUndefined();
    }));

    it('records a decision only while pending, with edited arguments', withPorts(async ({ approvals }) => {
      await approvals.request(ask('t1', 'c1'));
      const won = await approvals.decide('t1', 'c1', by('approve', { edited_arguments: { path: 'b.txt', content: 'y' }, label: 'Writing b.txt' }));
      expect(won).toMatchObject({ won: true, approval: { decision: 'approve', edited_arguments: { path: 'b.txt', content: 'y' }, label: 'Writing b.txt', decided_by: 'client' } });
      const lost = await approvals.decide('t1', 'c1', by('reject', { label: 'Writing c.txt' }));
      expect(lost).toMatchObject({ won: false, approval: { decision: 'approve', reason: null, label: 'Writing b.txt' } });
      // Without a label the stored one stays; a null label is stored as null.
      await approvals.request(ask('t1', 'c2'));
      expect((await approvals.decide('t1', 'c2', by('approve')))!.approval.label).toBe('Writing a.txt');
      await approvals.request(ask('t1', 'c3'));
      expect((await approvals.decide('t1', 'c3', by('approve', { edited_arguments: { path: 'c.txt', content: 'z' }, label: null })))!.approval.label).toBeNull();
      expect(await approvals.pendingCount('t1')).toBe(0);
      expect(await approvals.decide('t1', 'never-asked', by('approve'))).toBeUndefined();
    }));

    it('of concurrent different decisions exactly one is recorded', withPorts(async ({ approvals }) => {
      await approvals.request(ask('t1', 'c1'));
      const results = await Promise.all([
        approvals.decide('t1', 'c1', by('approve')),
        approvals.decide('t1', 'c1', by('reject')),
        approvals.decide('t1', 'c1', by('reject', { reason: 'other' })),
      ]);
      expect(results.filter((r) => r!.won)).toHaveLength(1);
      const stored = (await approvals.get('t1', 'c1'))!;
      const winner = results.find((r) => r!.won)!.approval;
      expect(stored).toEqual(winner);
      for (const r of results) expect(r!.approval.decision).toBe(stored.decision);
    }));

    it('finds expired pending approvals of unfinished turns, oldest expiry first', withPorts(async ({ approvals, turns }) => {
      const live = newTurn();
      const ended = newTurn();
      await turns.insert(live);
      await turns.insert(ended);
      await turns.finish(ended.id, { status: 'cancelled', completed_at: '2026-01-01T00:00:00.000Z', output_text: null, stop_reason: null, steps: 0, usage: null, error: null });
      await approvals.request(ask(live.id, 'late', { expires_at: '2026-01-01T00:00:05.000Z' }));
      await approvals.request(ask(live.id, 'early', { expires_at: '2026-01-01T00:00:01.000Z' }));
      await approvals.request(ask(live.id, 'future', { expires_at: '2026-01-01T01:00:00.000Z' }));
      await approvals.request(ask(live.id, 'decided', { expires_at: '2026-01-01T00:00:01.000Z' }));
      await approvals.decide(live.id, 'decided', by('approve'));
      await approvals.request(ask(ended.id, 'orphan', { expires_at: '2026-01-01T00:00:01.000Z' }));
      expect(await approvals.expired('2026-01-01T00:00:10.000Z', 10)).toEqual([
        { turn_id: live.id, call_id: 'early' },
        { turn_id: live.id, call_id: 'late' },
      ]);
      expect(await approvals.expired('2026-01-01T00:00:10.000Z', 1)).toEqual([{ turn_id: live.id, call_id: 'early' }]);
      expect(await approvals.expired('2026-01-01T00:00:00.000Z', 10)).toEqual([]);
    }));
  });
}
