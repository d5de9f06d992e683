/**
 * The turn that runs one start of a background job: kind `background_job`, origin
 * `{type: "background_job", job_id}`, the job tool set (todo, computer, web, clarify — never
 * schedule, workflow or jobs: one level deep), BACKGROUND_JOB_MAX_STEPS, and as input the
 * messages this start delivers. The first start sends the task verbatim as the first user message;
 * later starts (after an answer) and respawns continue the previous turn's transcript
 * (`previous_turn_id`). And how a finished job turn maps onto the job's next status.
 */
import { TOOL_FAMILIES, type ToolFamily } from '../config.js';
import { clip } from '../runtime/text-cut.js';
import type { CreateTurnInput, TurnRecord } from '../turns/turn-service-types.js';
import type { JobError, JobRecord, JobStatus } from './types.js';

/** Families a job turn asks for (those this build has). */
export const JOB_TURN_FAMILIES: ToolFamily[] = (['todo', 'computer', 'web', 'clarify'] as string[]).filter((f): f is ToolFamily =>
  (TOOL_FAMILIES as readonly string[]).includes(f),
);

/** Appended to the instructions of every job turn. */
export const JOB_INSTRUCTIONS =
  'You are running as a background job: nobody watches you work. Do the whole task with your tools, then answer with the result; ' +
  'that final answer is what the job reports. ' +
  (JOB_TURN_FAMILIES.includes('clarify' as ToolFamily)
    ? 'If you cannot go on without an answer from the user, call clarify with one clear question: the job waits for the answer and then continues here.'
    : 'If something is missing, say so in your answer.');

/** The idempotency key of start `attempt` of job `jobId` (a retried start gets the same turn). */
export const jobTurnKey = (jobId: string, attempt: number) => `background_job:${jobId}:${attempt}`;

/**
 * The turn request of `job`'s current start (`job.attempts`), delivering `job.pending_messages`.
 * @param previousTurnId the turn this start continues (undefined for a fresh first start).
 * @param inherited what the job keeps of the turn that created it (its stored request), so that a
 *   turn cannot escape its limits by handing work to a job:
 *   - `approvals`: the creating turn's `approvals` (names the job's tools do not have simply match
 *     nothing);
 *   - `skills`: the creating turn's `skills` list (`[]`: none; a per-turn skill such as a
 *     `runtime: background_job` one reaches the job); left out when the turn did not send one, so
 *     the job has the agent's enabled list, as that turn had.
 */
export function jobTurnRequest(
  job: JobRecord,
  maxSteps: number,
  previousTurnId: string | undefined,
  inherited: Pick<CreateTurnInput, 'approvals' | 'skills'> = {},
): CreateTurnInput {
  const { approvals, skills } = inherited;
  const texts = previousTurnId === undefined ? [job.task, ...job.pending_messages] : job.pending_messages;
  const input = texts.length > 0 ? texts.map((content) => ({ role: 'user' as const, content })) : [{ role: 'user' as const, content: 'Continue.' }];
  return {
    input,
    instructions: JOB_INSTRUCTIONS,
    agent_id: job.agent_id,
    tools: JOB_TURN_FAMILIES,
    max_steps: maxSteps,
    metadata: { job_id: job.id },
    ...(job.model ? { model: job.model } : {}),
    ...(previousTurnId ? { previous_turn_id: previousTurnId } : {}),
    ...(approvals !== undefined ? { approvals } : {}),
    ...(skills !== undefined ? { skills } : {}),
  };
}

/** Turn error codes worth trying again (the provider or the service hiccupped, not the task). */
const RETRYABLE = new Set(['rate_limit_exceeded', 'connection_error', 'model_timeout', 'stream_interrupted', 'interrupted', 'server_error', 'internal_error']);

export function jobErrorOf(error: { code: string; message: string } | null): JobError {
  const code = error?.code ?? 'failed';
  return { code, summary: error?.message ?? 'the job turn failed', retryable: RETRYABLE.has(code) || /^http_5\d\d$/.test(code) };
}

/** Where a finished job turn takes the job; undefined while the turn has not finished. */
export type JobTurnOutcome =
  | { to: Extract<JobStatus, 'succeeded'>; output_text: string }
  | { to: Extract<JobStatus, 'waiting_on_user'>; question: string }
  | { to: Extract<JobStatus, 'failed'>; error: JobError }
  | { to: Extract<JobStatus, 'stopped'> };

/** A turn that ended with the `clarify` tool (stop reason `clarify`, the question as its output). */
export function jobTurnOutcome(turn: TurnRecord): JobTurnOutcome | undefined {
  if (turn.status === 'completed') {
    if (turn.stop_reason === 'clarify') return { to: 'waiting_on_user', question: turn.output_text ?? '' };
    return { to: 'succeeded', output_text: turn.output_text ?? '' };
  }
  if (turn.status === 'failed') return { to: 'failed', error: jobErrorOf(turn.error) };
  if (turn.status === 'cancelled') return { to: 'stopped' };
  return undefined;
}

/**
 * True when a question asked by the current turn of `job` is past the cap: that turn is start
 * `job.attempts`, and each earlier start but the first was caused by an answered question, so its
 * question is number `job.attempts`.
 */
export function isPastQuestionLimit(job: Pick<JobRecord, 'attempts'>, maxQuestions: number): boolean {
  return job.attempts > maxQuestions;
}

/**
 * The question cap: a job's start number `job.attempts` (1-based) is also the number of the
 * question its turn asks when it ends with `clarify` (every earlier question's answer started a
 * new turn). Past `maxQuestions` the job fails `too_many_questions` instead of waiting: a job and
 * the follow-up turns that answer it could otherwise go back and forth without a person, each
 * exchange a model bill. Other outcomes pass unchanged.
 */
export function withQuestionLimit(job: Pick<JobRecord, 'attempts'>, outcome: JobTurnOutcome | undefined, maxQuestions: number): JobTurnOutcome | undefined {
  if (outcome?.to !== 'waiting_on_user' || !isPastQuestionLimit(job, maxQuestions)) return outcome;
  const question = clip(outcome.question, 200);
  return {
    to: 'failed',
    error: {
      code: 'too_many_questions',
      summary: `the job asked question ${job.attempts}, past BACKGROUND_JOB_MAX_QUESTIONS (${maxQuestions}): ${JSON.stringify(question)}. Respawn it (respawn_background_job) with the answer and everything it needs to finish without asking`,
      retryable: false,
    },
  };
}
