/**
 * Delivering a job's notice to its owner: into the conversation of the turn that created the job
 * (the chain of turns linked by `previous_turn_id` from it). If the newest turn of that
 * conversation is still live, the notice is applied to it as a steering message (between its
 * rounds); otherwise a follow-up turn is started continuing the newest finished turn, with the
 * same request settings (tools, model, instructions, approvals, webhook…), the notice as a developer message, and origin
 * `{type: "background_job", job_id}`. The follow-up's idempotency key is bound to the job's
 * status and attempt, so a delivery retried after a crash does not start a second one. Its
 * `webhook` is the newest turn's, else that of the turn that created the job: a client that asked
 * for a webhook when it started the work hears of the turn that reports the job's outcome.
 */
import type { CreateTurnInput, TurnRecord, TurnService } from '../turns/turn-service-types.js';
import type { JobRecord } from './types.js';

export interface NoticeDeliveryDeps {
  turns: Pick<TurnService, 'create' | 'get'>;
  /** The stored request of a turn. */
  requestOf(turnId: string): Promise<CreateTurnInput | undefined>;
  /** Ids of turns continuing `turnId` (`previous_turn_id`), newest first. */
  continuations(turnId: string): Promise<string[]>;
  /** Store `text` as a steering message of the live turn; undefined when it has finished (absent: never steers). */
  steer?: (turnId: string, text: string) => Promise<{ message_id: string } | undefined>;
}

/** `delivered`; `later` (try again: the conversation is busy and cannot be steered now); `dropped` (nowhere to deliver). */
export type NoticeDelivery = 'delivered' | 'later' | 'dropped';

const LIVE = new Set<TurnRecord['status']>(['queued', 'running', 'waiting']);

/** The newest turn of the conversation that `turnId` belongs to (following continuations). */
export async function newestOfConversation(d: Pick<NoticeDeliveryDeps, 'continuations'>, turnId: string): Promise<string> {
  let current = turnId;
  for (let hops = 0; hops < 10_000; hops++) {
    const [next] = await d.continuations(current);
    if (!next) break;
    current = next;
  }
  return current;
}

export async function deliverNotice(d: NoticeDeliveryDeps, job: JobRecord, notice: string): Promise<NoticeDelivery> {
  if (!job.source_turn_id) return 'dropped';
  const newestId = await newestOfConversation(d, job.source_turn_id);
  const newest = await d.turns.get(newestId);
  if (!newest) return 'dropped';
  if (LIVE.has(newest.status)) return d.steer && (await d.steer(newest.id, notice)) ? 'delivered' : 'later';
  const req = await d.requestOf(newest.id);
  const input: CreateTurnInput = {
    input: [{ role: 'developer', content: notice }],
    agent_id: newest.agent_id,
    previous_turn_id: newest.id,
    ...(req?.instructions !== undefined ? { instructions: req.instructions } : {}),
    ...(req?.model !== undefined ? { model: req.model } : {}),
    ...(req?.model_api !== undefined ? { model_api: req.model_api } : {}),
    ...(req?.tools !== undefined ? { tools: req.tools } : {}),
    ...(req?.max_steps !== undefined ? { max_steps: req.max_steps } : {}),
    ...(req?.brain !== undefined ? { brain: req.brain } : {}),
    ...(req?.skills !== undefined ? { skills: req.skills } : {}),
    ...(req?.approvals !== undefined ? { approvals: req.approvals } : {}),
  };
  const webhook = req?.webhook ?? (newest.id === job.source_turn_id ? undefined : (await d.requestOf(job.source_turn_id))?.webhook);
  if (webhook !== undefined) input.webhook = webhook;
  try {
    await d.turns.create(input, {
      kind: 'main',
      origin: { type: 'background_job', job_id: job.id },
      idempotencyKey: `background_job_notice:${job.id}:${job.attempts}:${job.status}`,
    });
    return 'delivered';
  } catch (err) {
    // The newest turn was continued meanwhile (a new turn is not finished yet): try again later.
    if ((err as { code?: string }).code === 'previous_turn_active') return 'later';
    throw err;
  }
}
