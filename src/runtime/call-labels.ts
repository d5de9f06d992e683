/**
 * Activity labels of a call's `tool.started` / `tool.completed` events when the tool's own
 * describers cannot give one:
 * - a call that never reached the tool (unknown tool, invalid arguments, refused) still gets a
 *   `tool.started` with {@link genericStartedLabel} (`Calling <tool>`), and a completed-form label
 *   saying what happened ({@link notRunLabel});
 * - a call that failed, timed out or was stopped gets the tool's `describeFailedActivity` label,
 *   or else {@link failedLabel} built from its activity label (`Failed: Reading a.txt`,
 *   `Stopped: Running \`sleep 30\``, `Timed out: …`), never the present-tense label alone;
 * - a call the user rejected (README "Tool approvals") starts like any call (the tool's own label)
 *   and ends with {@link rejectedLabel} (`Rejected: Writing a.txt`).
 */
import type { FailedActivity } from './tool.js';

/** Label of `tool.started` for a call whose arguments could not be validated (or did not run). */
export function genericStartedLabel(identity: string): string {
  return `Calling ${identity}`;
}

/** Why a call did not reach the tool. */
export type NotRunReason = 'unknown_tool' | 'invalid_arguments' | 'refused';

/** Completed-form label of a call that did not reach the tool. */
export function notRunLabel(identity: string, reason: NotRunReason): string {
  if (reason === 'unknown_tool') return `Could not call ${identity}: no such tool`;
  if (reason === 'invalid_arguments') return `Could not call ${identity}: invalid arguments`;
  return `Did not run ${identity}`;
}

/** Completed-form label of a failed / timed-out / stopped call from its activity label. */
export function failedLabel(activity: string, failure: FailedActivity): string {
  if (failure.kind === 'cancelled') return `Stopped: ${activity}`;
  if (failure.kind === 'timed_out') return `Timed out: ${activity}`;
  return `Failed: ${activity}`;
}

/** Completed-form label of a call the user rejected (or whose approval timed out) from its activity label. */
export function rejectedLabel(activity: string): string {
  return `Rejected: ${activity}`;
}
