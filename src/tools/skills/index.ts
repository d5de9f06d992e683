/**
 * The skills family: for a main or scheduled turn with enabled skills (src/skills/turn-skills.ts)
 * it offers `skill_view`, adds the skills index (name + description of each) to the
 * instructions, reports what is withheld (unknown or background-only skills, conflicting or
 * unreachable MCP servers) as `unavailable`, and, when a skill of the turn has MCP servers and
 * SKILL_SECRETS is set, filters every tool result of the turn so that each value reads
 * `[redacted:NAME]`: the values current when the result is filtered (the file is looked up again
 * for each tool call) and every value the turn saw before (src/skills/turn-secrets.ts), so a
 * secret rotated during the turn stays hidden — the new value and the old one. A turn without
 * skills gets nothing from this family (and no `unavailable` line).
 */
import type { TurnContext } from '../../assembly/context.js';
import type { FamilyCreator, FamilyResult } from '../../assembly/family.js';
import type { OutputFilter } from '../../assembly/output-filter.js';
import { redactSecrets } from '../../skills/secrets.js';
import { turnSecrets } from '../../skills/turn-secrets.js';
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
    let outputFilter: OutputFilter | undefined;
    if (t.servers.length > 0 && ctx.config.SKILL_SECRETS) {
      const secrets = turnSecrets(ctx);
      await secrets.read().catch(() => {});
      outputFilter = Object.assign((text: string) => redactSecrets(text, secrets.values()), {
        refresh: async () => {
          await secrets.read().catch(() => {});
        },
      });
    }
    return { tools: [skillViewTool(t)], instructions: skillsIndex(t), unavailable, outputFilter };
  },
};
