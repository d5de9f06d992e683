/**
 * The skills family: for a main or scheduled turn with enabled skills (src/skills/turn-skills.ts)
 * it offers `skill_view`, adds the skills index (name + description of each) to the
 * instructions, reports what is withheld (unknown or background-only skills, conflicting or
 * unreachable MCP servers) as `unavailable`, and, when SKILL_SECRETS holds values, filters every
 * tool result of the turn so that each value reads `[redacted:NAME]`. A turn without skills gets
 * nothing from this family (and no `unavailable` line).
 */
import type { TurnContext } from '../../assembly/context.js';
import type { FamilyCreator, FamilyResult } from '../../assembly/family.js';
import { redactSecrets } from '../../skills/secrets.js';
import { readSkillSecrets } from '../../assembly/services.js';
import { turnSkills, type TurnSkills } from '../../skills/turn-skills.js';
import { skillViewTool } from './skill-view.js';

/** The instructions block listing the enabled skills. */
export function skillsIndex(t: TurnSkills): string {
  const lines = [
    '## Skills',
    'These skills are enabled for this turn. Before using one, read its instructions with skill_view {"name": "<name>"}; its folder is mounted read-only at /skills/<name> for the command tool.',
    ...t.skills.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ')}`),
  ];
  return lines.join('\n');
}

export const skillsFamily: FamilyCreator = {
  family: 'skills',
  async create(ctx: TurnContext): Promise<FamilyResult> {
    if (ctx.kind === 'workflow_task') return { unavailable: 'not allowed in workflow task turns' };
    const t = await turnSkills(ctx);
    const unavailable = t.problems.length > 0 ? t.problems.join('; ') : undefined;
    if (t.skills.length === 0) return unavailable ? { unavailable } : { tools: [] };
    const secrets = t.servers.length > 0 ? await readSkillSecrets(ctx.services, ctx.config.SKILL_SECRETS).catch(() => new Map<string, string>()) : new Map<string, string>();
    return {
      tools: [skillViewTool(t)],
      instructions: skillsIndex(t),
      unavailable,
      outputFilter: secrets.size > 0 ? (text) => redactSecrets(text, secrets) : undefined,
    };
  },
};
