/**
 * `clarify` {question, choices?}: ask the user a question instead of guessing. `question` is 1..2000
 * characters; `choices` (at most 4) are strings (≤ 200) or `{label ≤ 200, description? ≤ 500}`.
 * The call emits a `presentation` event `{type: "clarify", question, choices}` (choices always as
 * `{label, description?}` objects) and then follows the turn's {@link ClarifyPolicy}: by default the
 * turn ends after this round with stop reason `clarify` and the question as its output (the answer
 * is the next turn, with `previous_turn_id`).
 */
import { z } from 'zod';
import type { TurnContext } from '../../assembly/context.js';
import type { JsonValue } from '../../runtime/json.js';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../runtime/tool.js';
import { clarifyPolicyFor, type ClarifyChoice, type ClarifyQuestion } from './policy.js';

export const CLARIFY_TOOL = 'clarify';
export const MAX_QUESTION_CHARS = 2000;
export const MAX_CHOICES = 4;

const choice = z.union([
  z.string().min(1).max(200).describe('A short answer the user can pick'),
  z.object({
    label: z.string().min(1).max(200).describe('The answer the user can pick'),
    description: z.string().max(500).optional().describe('What picking it means'),
  }),
]);

const schema = z.object({
  question: z.string().min(1).max(MAX_QUESTION_CHARS).describe('The question, complete and self-contained'),
  choices: z.array(choice).max(MAX_CHOICES).optional().describe('Up to 4 suggested answers; the user may still answer freely'),
});

/** The text the model sees when the turn ends with the question (unless the policy gives its own). */
export const ASKED_OUTPUT = 'The question was shown to the user. This turn ends here; their answer arrives as the next message.';

function normalize(p: z.output<typeof schema>): ClarifyQuestion {
  const choices: ClarifyChoice[] = (p.choices ?? []).map((c) =>
    typeof c === 'string' ? { label: c } : { label: c.label, ...(c.description !== undefined ? { description: c.description } : {}) },
  );
  return { question: p.question, choices };
}

/** The `clarify` tool of one turn. */
export function createClarifyTool() {
  return defineWorkerTool<typeof schema, AgentToolResult<ClarifyQuestion>, TurnContext>({
    name: CLARIFY_TOOL,
    description:
      'Ask the user a question when you cannot go on without their answer (a missing fact, a choice only they can make). ' +
      'Ask one clear question, optionally with up to 4 suggested answers. Do not use it for things you can find out yourself.',
    schema,
    executionMode: 'sequential',
    isReadOnly: true,
    describeActivity: () => 'Asking you a question',
    describeCompletedActivity: () => 'Asked you a question',
    async execute(params, ctx) {
      const q = normalize(params);
      const presentation = [{ type: 'clarify', question: q.question, choices: q.choices as unknown as JsonValue }];
      const turn = { turnId: ctx.turn.turnId, agentId: ctx.turn.agentId, kind: ctx.turn.kind };
      const policy = clarifyPolicyFor(turn, ctx.turn.services.clarifyPolicy);
      if (policy.type === 'continue') {
        const output = await policy.onAsked(q, turn);
        return textResult(output, q, { presentation });
      }
      const output = policy.output ? await policy.output(q, turn).catch(() => ASKED_OUTPUT) : ASKED_OUTPUT;
      return textResult(output, q, { presentation, terminate: { stopReason: 'clarify', outputText: q.question } });
    },
  });
}
