/**
 * The per-request assembler: builds one turn's tool set explicitly, in a fixed order of family
 * creators. A tool is available exactly when it is in the returned array; there is no registry
 * and no discovery. `POST /v1/tools/preview` runs this same function.
 *
 * To add a family: write `src/tools/<family>/index.ts` exporting a {@link FamilyCreator}, and add
 * it to the list for the turn kinds that may have it — nothing else changes.
 */
import type { AnyWorkerAgentTool } from '../runtime/tool.js';
import { toolIdentity } from '../runtime/tool.js';
import type { TurnContext } from './context.js';
import type { FamilyCreator } from './family.js';
import { todoFamily } from '../tools/todo/index.js';
import { computerFamily } from '../tools/computer/index.js';
import { webFamily, workflowTaskWebFamily } from '../tools/web/index.js';
import { brainFamily } from '../tools/brain/index.js';
import { submitResultFamily } from '../tools/submit-result/index.js';
import { workflowFamily } from '../tools/workflow/index.js';
import { scheduleFamily } from '../tools/schedule/index.js';
import { skillsFamily } from '../tools/skills/index.js';
import { clarifyFamily } from '../tools/clarify/index.js';
import { jobsFamily } from '../tools/jobs/index.js';
import { filterToolOutput, type OutputFilter } from './output-filter.js';

/** Creators for main and scheduled turns, in order (todo, computer, web, schedule, workflow, …). */
export const MAIN_TURN_FAMILIES: FamilyCreator[] = [
  todoFamily,
  computerFamily,
  webFamily,
  scheduleFamily,
  brainFamily, // recall/get_page when the turn asked for brain: true
  skillsFamily, // skill_view + the skills index when skills are enabled
  clarifyFamily, // clarify (ask the user), on by default
  jobsFamily, // background jobs (main turns only)
  workflowFamily, // keep last
];

/**
 * Creators for workflow task turns: a fixed catalog (web, brain read-only, submit_result); never
 * clarify; `jobs` only to report why it is absent.
 */
export const WORKFLOW_TASK_FAMILIES: FamilyCreator[] = [workflowTaskWebFamily, brainFamily, submitResultFamily, jobsFamily];

/**
 * Creators for a background job's turns: todo, computer, web, skills, clarify (which puts the job in
 * waiting_on_user); `jobs` only to report why it is absent (one level deep); never schedule or workflow.
 */
export const BACKGROUND_JOB_FAMILIES: FamilyCreator[] = [todoFamily, computerFamily, webFamily, skillsFamily, clarifyFamily, jobsFamily];

/** The creator list of a kind of turn. */
export function familiesFor(kind: TurnContext['kind']): FamilyCreator[] {
  if (kind === 'workflow_task') return WORKFLOW_TASK_FAMILIES;
  if (kind === 'background_job') return BACKGROUND_JOB_FAMILIES;
  return MAIN_TURN_FAMILIES;
}

export interface AssembledTools {
  tools: AnyWorkerAgentTool[];
  unavailable: { family: string; reason: string }[];
  /** Families' additions to the instructions, in family order (empty when none). */
  instructions: string[];
}

/**
 * Build the tool set for `ctx`. Throws when two tools share an identity (namespace + name):
 * that is a programming error and must fail before any model call.
 */
export async function assembleTools(
  ctx: TurnContext,
  creators: FamilyCreator[] = familiesFor(ctx.kind),
): Promise<AssembledTools> {
  const tools: AnyWorkerAgentTool[] = [];
  const unavailable: AssembledTools['unavailable'] = [];
  const instructions: string[] = [];
  const filters: OutputFilter[] = [];
  for (const creator of creators) {
    const result = await creator.create(ctx);
    if (result.tools !== undefined) {
      tools.push(...result.tools);
      if (result.instructions) instructions.push(result.instructions);
      if (result.outputFilter) filters.push(result.outputFilter);
    }
    if (result.unavailable !== undefined) unavailable.push({ family: creator.family, reason: result.unavailable });
  }
  const seen = new Set<string>();
  for (const tool of tools) {
    const id = toolIdentity(tool);
    if (seen.has(id)) throw new Error(`two tools named ${id} in one turn's tool set`);
    seen.add(id);
  }
  if (filters.length > 0) {
    const f: OutputFilter = Object.assign((text: string) => filters.reduce((t, g) => g(t), text), {
      refresh: async () => {
        await Promise.all(filters.map((g) => g.refresh?.().catch(() => {})));
      },
    });
    return { tools: tools.map((t) => filterToolOutput(t, f)), unavailable, instructions };
  }
  return { tools, unavailable, instructions };
}
