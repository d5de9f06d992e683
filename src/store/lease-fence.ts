/**
 * Lease fencing: what keeps a run that lost its turn's lease from writing for that turn.
 *
 * On Postgres several instances run turns; a run holds its turn through a lease (`turns.owner`,
 * `lease_until`) and a claim epoch (`turns.lease_epoch`, raised whenever the turn passes to
 * another holder: a first claim, a claim after a release, a claim of a lease another instance let
 * run out). A connection that hangs longer than TURN_LEASE_MS can deliver a run's statements after
 * another instance took the turn over — even after it finished it. So every write a run makes for
 * its turn carries the run's {@link LeaseFence}, and the store applies it only while the turn's row
 * still shows that owner and epoch, checked in the same statement or transaction, with the row
 * locked (`FOR SHARE`) until the commit — a claim waits for the write, or the write, arriving after
 * the claim, sees the new holder and is refused. A refusal rejects with {@link LeaseLostError}
 * and marks the fence `lost`, after which the stores refuse its writes without asking the database.
 *
 * SQLite is one process with DATA_DIR to itself: its stores accept and ignore fences.
 */
import { DomainError } from '../errors.js';

/** The lease one run holds on its turn (Postgres). */
export interface LeaseFence {
  readonly turnId: string;
  /** The instance id in `turns.owner`. */
  readonly owner: string;
  /** `turns.lease_epoch` of the claim the run holds. */
  readonly epoch: number;
  /** True once the run lost the lease (a write refused, a heartbeat that found it gone): stores refuse its writes at once. */
  lost: boolean;
}

/** 409 `lease_lost`: a write of a run that no longer holds its turn's lease was refused. */
export class LeaseLostError extends DomainError {
  constructor(turnId: string) {
    super('lease_lost', `the run of turn ${turnId} no longer holds the turn's lease (another instance took it over, or it ended): its write was refused`, 409, { turn_id: turnId });
  }
}

/**
 * True for {@link LeaseLostError} only: a write of a turn's run refused because the run no longer
 * holds that turn's lease. A workflow driver's refusal ({@link WorkflowLeaseLostError}, the same
 * code `lease_lost`) is not one: see {@link isWorkflowLeaseLost}.
 */
export function isLeaseLost(err: unknown): err is LeaseLostError {
  return err instanceof LeaseLostError;
}

/** Mark `fence` lost and return the error to reject with. */
export function leaseLost(fence: LeaseFence): LeaseLostError {
  fence.lost = true;
  return new LeaseLostError(fence.turnId);
}

/**
 * The lease one instance holds on a running workflow it drives (Postgres): `workflows.owner` and
 * the claim epoch `workflows.lease_epoch` (migration 20), raised by every claim that hands the
 * workflow to another driver. The driver's writes of the workflow's state (task rows, its ending)
 * carry it and are stored only while the row still shows that owner and epoch — checked, with the
 * row locked `FOR SHARE`, in the write's own statement or transaction — as a run's writes for its
 * turn are ({@link LeaseFence}).
 */
export interface WorkflowFence {
  readonly workflowId: string;
  /** The instance id in `workflows.owner`. */
  readonly owner: string;
  /** `workflows.lease_epoch` of the claim (or the leased insert) the driver holds. */
  readonly epoch: number;
  /** True once a write was refused: stores refuse the driver's writes at once. */
  lost: boolean;
}

/** 409 `lease_lost` for a workflow: a write of an instance that no longer drives it was refused. */
export class WorkflowLeaseLostError extends DomainError {
  constructor(workflowId: string) {
    super('lease_lost', `this instance no longer drives workflow ${workflowId} (another instance took it over): its write was refused`, 409, { workflow_id: workflowId });
  }
}

/**
 * True for {@link WorkflowLeaseLostError} only: a write of a workflow's driver refused because
 * another instance drives the workflow now (not a turn run's lost lease: {@link isLeaseLost}).
 */
export function isWorkflowLeaseLost(err: unknown): err is WorkflowLeaseLostError {
  return err instanceof WorkflowLeaseLostError;
}

/** Mark `fence` lost and return the error to reject with. */
export function workflowLeaseLost(fence: WorkflowFence): WorkflowLeaseLostError {
  fence.lost = true;
  return new WorkflowLeaseLostError(fence.workflowId);
}

/**
 * 409 `stream_closed`: an event appended to a stream after its terminal event (a turn's
 * `turn.completed` / `failed` / `cancelled`, a workflow's or job's ending). Nothing is stored
 * after a terminal event: clients close their streams on it.
 */
export class StreamClosedError extends DomainError {
  constructor(streamId: string, type: string) {
    super('stream_closed', `stream ${streamId} has ended: its terminal event is stored, so ${type} was not`, 409, { stream_id: streamId, type });
  }
}
