/**
 * The two `lease_lost` refusals are told apart: a turn run's (its turn's lease) and a workflow
 * driver's (the workflow's lease). A turn run stops on its own only (src/turns/turn-run.ts
 * `refused`); a workflow driver stops driving on the workflow's only.
 */
import { expect, it } from 'vitest';
import { isLeaseLost, isWorkflowLeaseLost, LeaseLostError, WorkflowLeaseLostError } from '../../src/store/lease-fence.js';
import { DomainError } from '../../src/errors.js';

it("isLeaseLost is true for a turn run's refusal only, isWorkflowLeaseLost for a workflow driver's only", () => {
  const turn = new LeaseLostError('t1');
  const workflow = new WorkflowLeaseLostError('w1');
  expect([turn.code, workflow.code]).toEqual(['lease_lost', 'lease_lost']);
  expect([isLeaseLost(turn), isLeaseLost(workflow)]).toEqual([true, false]);
  expect([isWorkflowLeaseLost(turn), isWorkflowLeaseLost(workflow)]).toEqual([false, true]);
  const other = new DomainError('stream_closed', 'x', 409);
  expect([isLeaseLost(other), isWorkflowLeaseLost(other), isLeaseLost(new Error('lease_lost'))]).toEqual([false, false, false]);
});
