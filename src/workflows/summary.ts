/** Counting a workflow's tasks by status and the one-line summary stored when it ends. */
import type { TaskCounts } from './events.js';
import type { WorkflowTask } from './types.js';
import { quoteForDisplay } from '../unsafe-chars.js';

/** Tasks per status. */
export function countTasks(tasks: Pick<WorkflowTask, 'status'>[]): TaskCounts {
  const counts: TaskCounts = { queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 };
  for (const t of tasks) counts[t.status]++;
  return counts;
}

/** How many failed tasks the summary names, with their error codes; the rest are counted. */
export const SUMMARY_FAILED_NAMED = 5;

/**
 * The one-line summary of a finished workflow: the task count, the count per status, and the
 * first {@link SUMMARY_FAILED_NAMED} failed tasks (index, label, error code) with how many more
 * failed, e.g. `3 tasks: 2 succeeded, 1 failed (task 1 "b": schema_noncompliance)` or, with 7
 * failed, `… (task 0 "a": max_steps; …; task 4 "e": max_steps; and 2 more)`. A label is quoted as
 * JSON with the characters src/unsafe-chars.ts lists as `\uXXXX` escapes, so one stored before
 * labels refused them cannot reverse or break the line (`task 0 "a\u202Eb": …`). Pure.
 */
export function summarize(tasks: WorkflowTask[], counts = countTasks(tasks)): string {
  const parts = (['succeeded', 'failed', 'cancelled', 'running', 'queued'] as const)
    .filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${s}`);
  const allFailed = tasks.filter((t) => t.status === 'failed');
  const named = allFailed.slice(0, SUMMARY_FAILED_NAMED).map((t) => `task ${t.index} ${quoteForDisplay(t.label)}: ${t.error?.code ?? 'failed'}`);
  if (allFailed.length > named.length) named.push(`and ${allFailed.length - named.length} more`);
  const why = named.length ? ` (${named.join('; ')})` : '';
  return `${tasks.length} task${tasks.length === 1 ? '' : 's'}: ${parts.join(', ')}${why}`;
}
