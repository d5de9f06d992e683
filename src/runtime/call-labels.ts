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
 *
 * Every label the runtime shows — a tool's own ({@link toolLabel}: `tool.started`, `tool.completed`,
 * approvals) and the ones built here — goes through this module, which writes the characters
 * src/unsafe-chars.ts lists (control characters, line separators, invisible characters,
 * bidirectional controls) as `\uXXXX` escapes: a label quotes model- or user-given text (a file
 * name, a command, a job title), and `Created outbox/evil\u202Etxt.exe` must not show as
 * "Created outbox/evilexe.txt". Other text (emoji sequences with ZWJ, ZWNJ, right-to-left
 * scripts) is kept.
 */
import { escapeUnsafeChars } from '../unsafe-chars.js';
import type { FailedActivity } from './tool.js';

/**
 * A label from one of a tool's describers (`describeActivity`, `describeCompletedActivity`,
 * `describeFailedActivity`), with unsafe characters escaped: `fallback` when the describer gives
 * undefined or throws, null when it gives null (no activity row).
 */
export function toolLabel(describe: () => string | null | undefined, fallback: string | null): string | null {
  let v: string | null | undefined;
  try {
    v = describe();
  } catch {
    v = undefined;
  }
  const label = v === undefined ? fallback : v;
  return label === null ? null : escapeUnsafeChars(label);
}

/** Label of `tool.started` for a call whose arguments could not be validated (or did not run). */
export function genericStartedLabel(identity: string): string {
  return escapeUnsafeChars(`Calling ${identity}`);
}

/** Why a call did not reach the tool. */
export type NotRunReason = 'unknown_tool' | 'invalid_arguments' | 'refused';

/** Completed-form label of a call that did not reach the tool. */
export function notRunLabel(identity: string, reason: NotRunReason): string {
  const shown = escapeUnsafeChars(identity);
  if (reason === 'unknown_tool') return `Could not call ${shown}: no such tool`;
  if (reason === 'invalid_arguments') return `Could not call ${shown}: invalid arguments`;
  return `Did not run ${shown}`;
}

/** Completed-form label of a call a crash interrupted (it was started and may have had effects). */
export function interruptedLabel(identity: string): string {
  return escapeUnsafeChars(`Interrupted: ${identity}`);
}

/** Completed-form label of a failed / timed-out / stopped call from its activity label. */
export function failedLabel(activity: string, failure: FailedActivity): string {
  const shown = escapeUnsafeChars(activity);
  if (failure.kind === 'cancelled') return `Stopped: ${shown}`;
  if (failure.kind === 'timed_out') return `Timed out: ${shown}`;
  return `Failed: ${shown}`;
}

/** Completed-form label of a call the user rejected (or whose approval timed out) from its activity label. */
export function rejectedLabel(activity: string): string {
  return `Rejected: ${escapeUnsafeChars(activity)}`;
}
