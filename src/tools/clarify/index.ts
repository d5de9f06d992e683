/**
 * The `clarify` family: one `clarify` tool (./clarify-tool.ts) in main and scheduled turns whose
 * families include `clarify` (in DEFAULT_TOOLS by default); never in workflow task turns, which
 * have no user to answer. What a call does to its turn is the turn's policy (./policy.ts).
 */
import type { FamilyCreator, FamilyResult } from '../../assembly/family.js';
import { createClarifyTool } from './clarify-tool.js';

export { CLARIFY_TOOL } from './clarify-tool.js';
export type { ClarifyChoice, ClarifyPolicy, ClarifyPolicyResolver, ClarifyQuestion, ClarifyTurn } from './policy.js';

export const clarifyFamily: FamilyCreator = {
  family: 'clarify',
  create(ctx): FamilyResult {
    if (ctx.kind === 'workflow_task') return { unavailable: 'not allowed in workflow task turns' };
    if (!ctx.families.includes('clarify')) return { unavailable: 'not enabled for this turn' };
    return { tools: [createClarifyTool()] };
  },
};
