/**
 * Text the workflow tools show the model: a workflow's status, each task's status and the results,
 * paged so one `workflow_get` output stays under {@link OUTPUT_BUDGET_BYTES}.
 */
import type { WorkflowRecord } from '../../workflows/types.js';
import { summarize } from '../../workflows/summary.js';
import { quoteForDisplay } from '../../unsafe-chars.js';

/** Upper bound of one workflow_get output, bytes (UTF-8). */
export const OUTPUT_BUDGET_BYTES = 8000;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * One line per task: `#0 "label": succeeded (1 attempt)` plus the error when failed; the label
 * quoted as JSON with control, separator, invisible and bidi characters as `\uXXXX` escapes.
 */
export function taskLines(wf: WorkflowRecord): string[] {
  return wf.tasks.map((t) => {
    const attempts = `${t.attempts} attempt${t.attempts === 1 ? '' : 's'}`;
    const error = t.error && t.status !== 'succeeded' ? ` — ${t.error.code}: ${t.error.message.slice(0, 160)}` : '';
    return `#${t.index} ${quoteForDisplay(t.label.slice(0, 80))}: ${t.status} (${attempts})${error}`;
  });
}

/** The header line: id, title (quoted and escaped like a task label), status and counts. */
export function headerLine(wf: WorkflowRecord): string {
  return `Workflow ${wf.id} ${quoteForDisplay(wf.title)}: ${wf.status} — ${summarize(wf.tasks)}`;
}

/**
 * The full workflow_get text, results of succeeded tasks from task index `resultOffset` on, as many
 * as fit the budget (at least one, truncated if it alone is too big), with a note naming the
 * offset to continue from.
 */
export function formatWorkflow(wf: WorkflowRecord, resultOffset = 0): { text: string; nextResultOffset: number | null } {
  const head = [headerLine(wf), 'Tasks:', ...taskLines(wf)].join('\n');
  const withResults = wf.tasks.filter((t) => t.status === 'succeeded' && t.index >= resultOffset);
  if (withResults.length === 0) {
    const none = wf.tasks.some((t) => t.status === 'succeeded') ? `No results from task #${resultOffset} on.` : 'No results yet.';
    return { text: `${head}\n${none}`, nextResultOffset: null };
  }
  const lines: string[] = [];
  let used = bytes(head) + 200;
  let next: number | null = null;
  for (const t of withResults) {
    let line = `#${t.index}: ${JSON.stringify(t.result)}`;
    const room = OUTPUT_BUDGET_BYTES - used;
    if (bytes(line) > room) {
      if (lines.length > 0) {
        next = t.index;
        break;
      }
      const cut = Math.max(200, room - 120);
      line = `${Buffer.from(line, 'utf8').subarray(0, cut).toString('utf8')}… (truncated: ${bytes(line)} bytes; the full result is in GET /v1/workflows/${wf.id})`;
    }
    lines.push(line);
    used += bytes(line) + 1;
  }
  const more = next !== null ? `\nMore results: call workflow_get with result_offset ${next}.` : '';
  return { text: `${head}\nResults:\n${lines.join('\n')}${more}`, nextResultOffset: next };
}
