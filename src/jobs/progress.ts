/**
 * A job's progress, read from its event stream and its turns: model steps and usage over all its
 * turns, finished tool calls, the last activity label, and the last activity groups. A group is
 * what one stretch of work did: the tool calls (completed labels) up to and including the answer
 * text that closed them; the newest group may still be open (tools, no text yet).
 */
import type { Usage } from '../runtime/events.js';
import type { TurnRecord } from '../turns/turn-service-types.js';
import type { PublishedEventLog } from '../store/published-event-log.js';
import type { JobEvent } from './events.js';
import type { JobRecord } from './types.js';

export interface ActivityGroup {
  /** Completed labels of the tool calls, oldest first (`✗ ` marks a failed one). */
  tools: string[];
  /** The answer text that closed the group (null while open). */
  text: string | null;
}

export interface JobProgress {
  /** Model requests over all the job's turns. */
  steps: number;
  tool_calls: number;
  last_activity: string | null;
  /** Tokens over the job's turns; null when some response came without usage. */
  usage: Usage | null;
  /** The last `groups` activity groups, oldest first. */
  recent: ActivityGroup[];
}

/** @param groups how many recent groups to keep [3]. */
export async function jobProgress(
  events: PublishedEventLog<JobEvent>,
  getTurn: (id: string) => Promise<TurnRecord | undefined>,
  job: JobRecord,
  groups = 3,
): Promise<JobProgress> {
  let steps = 0;
  let usage: Usage | null = { input_tokens: 0, output_tokens: 0 };
  for (const id of job.turn_ids) {
    const t = await getTurn(id);
    if (!t) continue;
    steps += t.steps;
    if (usage && t.usage) usage = { input_tokens: usage.input_tokens + t.usage.input_tokens, output_tokens: usage.output_tokens + t.usage.output_tokens };
    else usage = null;
  }
  let toolCalls = 0;
  let last: string | null = null;
  const all: ActivityGroup[] = [];
  let open: ActivityGroup = { tools: [], text: null };
  for (let after = 0; ; ) {
    const page = await events.read(job.id, after, 1000);
    for (const { event } of page) {
      if (event.type !== 'job.activity') continue;
      if (event.kind === 'tool') {
        toolCalls++;
        last = event.label ?? last;
        open.tools.push(`${event.is_error ? '✗ ' : ''}${event.label ?? 'tool call'}`);
      } else {
        open.text = event.text;
        all.push(open);
        open = { tools: [], text: null };
      }
    }
    if (page.length < 1000) break;
    after = page[page.length - 1].seq;
  }
  if (open.tools.length > 0) all.push(open);
  return { steps, tool_calls: toolCalls, last_activity: last, usage, recent: all.slice(-groups) };
}
