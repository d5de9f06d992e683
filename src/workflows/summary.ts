/** Counting a workflow's tasks by status and the one-line summary stored when it ends. */
import type { TaskCounts } from './events.js';
import type { WorkflowTask } from './types.js';

/** Tasks per status. */
export function countTasks(tasks: Pick<WorkflowTask, 'status'>[]): TaskCounts {
  const counts: TaskCounts = { queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 };
  for (const t of tasks) counts[t.status]++;
  return counts;
}

/** e.g. `3 tasks: 2 succeeded, 1 failed (task 1 "b": schema_noncompliance)`. */
export function summarize(tasks: WorkflowTask[], counts = countTasks(tasks)): string {
  const parts = (['succeeded', 'failed', 'cancelled', 'running', 'queued'] as const)
    .filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${s}`);
  const failed = tasks.filter((t) => t.status === 'failed').slice(0, 5);
  const why = failed.length ? ` (${failed.map((t) => `task ${t.index} ${JSON.stringify(t.label)}: ${t.error?.code ?? 'failed'}`).join('; ')})` : '';
  return `${tasks.length} task${tasks.length === 1 ? '' : 's'}: ${parts.join(', ')}${why}`;
}
