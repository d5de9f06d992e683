/**
 * What a background job's model is told when it calls `clarify` (README "Background jobs"). The
 * job turn ends with the question either way (stop reason `clarify`); then
 * - within BACKGROUND_JOB_MAX_QUESTIONS the job waits on the user: the question goes to whoever
 *   started the job (its owner's turn is told), the answer arrives as the next message;
 * - past it the job fails `too_many_questions` ({@link withQuestionLimit}): the question reaches
 *   nobody, and the output says so — a respawn continues this transcript, so the model must not
 *   read the next message as the answer to a question nobody saw.
 * Both decisions use {@link isPastQuestionLimit}, so the output and the job's status agree.
 */
import type { ClarifyPolicyResolver } from '../tools/clarify/policy.js';
import { isPastQuestionLimit } from './job-turn.js';
import type { JobRecord } from './types.js';

/** The clarify output of a job turn whose question waits for an answer. */
export const JOB_QUESTION_PASSED_ON = 'The question goes to whoever started this background job; the job waits for their answer, which arrives as the next message.';

/** The clarify output of a job turn past the question cap (`max` = BACKGROUND_JOB_MAX_QUESTIONS). */
export function jobQuestionRefused(max: number): string {
  return (
    `The question was not passed on to anyone: this background job has already asked ${max} question${max === 1 ? '' : 's'}, the most it may (BACKGROUND_JOB_MAX_QUESTIONS), ` +
    'so it ends here as failed (too_many_questions) with this question in its error. If it is continued, the next message brings the answer and what is needed to finish without asking.'
  );
}

export interface JobClarifyDeps {
  /** The job turn `turnId` runs, or undefined (not a job's turn, or gone). */
  jobOfTurn(turnId: string): Promise<Pick<JobRecord, 'attempts'> | undefined>;
  maxQuestions: number;
}

/** The clarify policy of background job turns (other kinds: undefined, the default policy). */
export function jobClarifyPolicy(d: JobClarifyDeps): ClarifyPolicyResolver {
  return (turn) =>
    turn.kind !== 'background_job'
      ? undefined
      : {
          type: 'end_turn',
          async output(_question, t) {
            const job = await d.jobOfTurn(t.turnId);
            if (!job) throw new Error(`turn ${t.turnId} has no job`); // the default output then
            return isPastQuestionLimit(job, d.maxQuestions) ? jobQuestionRefused(d.maxQuestions) : JOB_QUESTION_PASSED_ON;
          },
        };
}
