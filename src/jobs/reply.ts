/**
 * The job's reply to a message (send_message_to_background_job with `wait_reply`): the first answer
 * text, question or ending of the job after the message was applied, with the job's tool activity
 * since the message was sent (at most {@link REPLY_MAX_BYTES} UTF-8 bytes in all, the newest kept). "Applied": for a message
 * delivered at a start (queued, or answering a question) the `job.started` that delivered it; for
 * a steering message its `job.message_applied` (the turn's next round boundary took it in).
 */
import type { LoggedEvent } from '../store/event-log.js';
import type { JobEvent } from './events.js';

export const REPLY_MAX_BYTES = 24 * 1024;

export interface JobReply {
  /**
   * `message` (an answer text), `question` (the job asks), `approval` (its turn now waits for a
   * person to decide calls: `text` lists them), `succeeded`, `failed`, `stopped`.
   */
  kind: 'message' | 'question' | 'approval' | 'succeeded' | 'failed' | 'stopped';
  text: string;
  /** Completed labels of the job's tool calls since the message was sent, oldest first (`✗` marks a failed one). */
  activity: string[];
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** Keep the newest lines of `activity` and the reply text within REPLY_MAX_BYTES (text first). */
export function fitReply(reply: JobReply): JobReply {
  let budget = REPLY_MAX_BYTES;
  let text = reply.text;
  if (bytes(text) > budget) text = Buffer.from(text, 'utf8').subarray(0, budget).toString('utf8').replace(/\uFFFD$/, '');
  budget -= bytes(text);
  const kept: string[] = [];
  for (const line of [...reply.activity].reverse()) {
    if (bytes(line) + 1 > budget) break;
    budget -= bytes(line) + 1;
    kept.unshift(line);
  }
  return { ...reply, text, activity: kept };
}

/** What a job waiting for approvals waits on, in one line for the model. */
export function approvalText(approvals: readonly { name: string; label: string | null; call_id: string }[]): string {
  const calls = approvals.map((a) => `${a.name}${a.label ? ` (${a.label})` : ''} [call ${a.call_id}]`).join('; ');
  return `waiting for a person to approve or reject: ${calls}`;
}

/** A visitor for followUntil that finds the reply after a message of `delivery`. */
export function replyFinder(delivery: 'queued' | 'steering' | 'answer', messageId: string | null = null): (logged: LoggedEvent<JobEvent>) => JobReply | undefined {
  let applied = false;
  const activity: string[] = [];
  return ({ event }) => {
    if (event.type === 'job.activity' && event.kind === 'tool' && event.label) activity.push(`${event.is_error ? '✗' : '✓'} ${event.label}`);
    if (!applied) {
      if (delivery !== 'steering' && event.type === 'job.started') applied = true;
      else if (delivery === 'steering' && event.type === 'job.message_applied' && event.message_id === messageId) return (applied = true), undefined;
      else if (event.type === 'job.stopped' || event.type === 'job.failed' || event.type === 'job.succeeded') applied = true;
      else return undefined;
    }
    switch (event.type) {
      case 'job.activity':
        if (event.kind === 'message' && event.text?.trim()) return fitReply({ kind: 'message', text: event.text, activity });
        return undefined;
      case 'job.waiting_on_user':
        return fitReply({ kind: 'question', text: event.question, activity });
      case 'job.waiting_on_approval':
        return fitReply({ kind: 'approval', text: approvalText(event.approvals), activity });
      case 'job.succeeded':
        return fitReply({ kind: 'succeeded', text: event.output_text, activity });
      case 'job.failed':
        return fitReply({ kind: 'failed', text: `${event.error.code}: ${event.error.summary}`, activity });
      case 'job.stopped':
        return fitReply({ kind: 'stopped', text: 'the job was stopped', activity });
      default:
        return undefined;
    }
  };
}
