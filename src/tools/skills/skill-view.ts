/**
 * `skill_view {name, file_path = "SKILL.md"}` (parallel, read-only): read a file of a skill
 * enabled for this turn. Paths follow the rules of skill-path.ts; a skill not enabled gives
 * `skill is not enabled for this turn: <name>`. The text comes back wrapped as
 * `<skill name="…" location="skill://enabled/<name>/<file>">…</skill>` (attributes XML-escaped);
 * SKILL.md loses its frontmatter, and for a skill with MCP servers gets the exact mcporter call
 * forms appended (see {@link mcpUsage}).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineWorkerTool, textResult } from '../../runtime/tool.js';
import { stripFrontmatter } from '../../skills/skill-format.js';
import type { Skill } from '../../skills/skill-folder.js';
import type { TurnSkills } from '../../skills/turn-skills.js';
import { resolveSkillPath } from './skill-path.js';

/** Max bytes of one file skill_view returns. */
export const MAX_VIEW_BYTES = 256 * 1024;
/** `--timeout` the call forms tell the model to use, ms. */
export const MCP_LIST_TIMEOUT_MS = 30_000;
export const MCP_CALL_TIMEOUT_MS = 60_000;

const schema = z.object({
  name: z.string().min(1).max(64).describe('Skill name, from the skills list in your instructions'),
  file_path: z.string().min(1).max(1024).optional().describe('File inside the skill folder, relative (default SKILL.md), e.g. references/api.md'),
});

/** Escape `&<>"'` for an XML attribute value. */
export function xmlAttr(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** How to call a skill's MCP servers from `command`, for the servers usable this turn. */
export function mcpUsage(skill: Skill, turn: TurnSkills): string {
  if (skill.mcpServers.length === 0) return '';
  const usable = new Set(turn.servers.map((s) => s.decl.value));
  const lines = ['', '## MCP servers of this skill', 'Call them with the `command` tool (mcporter is on PATH there and already configured for this turn). First read a tool\'s input schema, then call it with its arguments as a JSON object on stdin:'];
  for (const s of skill.mcpServers) {
    if (!usable.has(s.value)) {
      lines.push(`- ${s.value}: not available in this turn (see the turn's unavailable list)`);
      continue;
    }
    const tools = s.enabled_tools && s.enabled_tools.length > 0 ? s.enabled_tools : ['<tool>'];
    lines.push(`- ${s.value} (${s.transport})${s.description ? `: ${s.description}` : ''}${tools[0] === '<tool>' ? ` — list its tools with: mcporter list ${s.value} --schema --json --timeout ${MCP_LIST_TIMEOUT_MS}` : ''}`);
    for (const t of tools) {
      lines.push(`  mcporter list '${s.value}.${t}' --schema --json --timeout ${MCP_LIST_TIMEOUT_MS}`);
      lines.push(`  mcporter call '${s.value}.${t}' --json - --output json --timeout ${MCP_CALL_TIMEOUT_MS} < args.json`);
    }
  }
  lines.push('A failed MCP call exits non-zero.');
  return lines.join('\n');
}

/** The skill_view tool for a turn whose resolved skills are `turn`. */
export function skillViewTool(turn: TurnSkills) {
  return defineWorkerTool({
    name: 'skill_view',
    description: 'Read a file of a skill enabled for this turn (default its SKILL.md with the instructions). Skills are listed in your instructions; read SKILL.md before using a skill. The skill folder is also at /skills/<name> for the command tool.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    describeActivity: (p) => `Reading skill ${p.name}${p.file_path && p.file_path !== 'SKILL.md' ? `/${p.file_path}` : ''}`,
    async execute(p) {
      const skill = turn.skills.find((s) => s.name === p.name);
      if (!skill) throw new Error(`skill is not enabled for this turn: ${p.name}`);
      const { relative, real } = await resolveSkillPath(skill.dir, p.file_path ?? 'SKILL.md');
      if (!real) throw new Error(`skill ${skill.name} has no file ${relative}`);
      const st = await stat(real);
      if (st.isDirectory()) {
        const names = (await readdir(real, { withFileTypes: true })).map((d) => (d.isDirectory() ? `${d.name}/` : d.name)).sort();
        throw new Error(`${relative} is a folder of skill ${skill.name}; its entries: ${names.join(', ') || '(empty)'}`);
      }
      if (!st.isFile()) throw new Error(`${relative} of skill ${skill.name} is not a regular file`);
      if (st.size > MAX_VIEW_BYTES) throw new Error(`${relative} of skill ${skill.name} is ${st.size} bytes, more than skill_view returns (${MAX_VIEW_BYTES}); read it with the command tool at /skills/${skill.name}/${relative}`);
      const bytes = await readFile(real);
      if (bytes.includes(0)) throw new Error(`${relative} of skill ${skill.name} is a binary file; use the command tool on /skills/${skill.name}/${relative}`);
      let text = bytes.toString('utf8');
      if (relative === 'SKILL.md') text = stripFrontmatter(text).replace(/^\s*\n/, '') + mcpUsage(skill, turn);
      const location = `skill://enabled/${skill.name}/${relative}`;
      return textResult(`<skill name="${xmlAttr(skill.name)}" location="${xmlAttr(location)}">\n${text.replace(/\n+$/, '')}\n</skill>`, { name: skill.name, file_path: relative, bytes: bytes.length });
    },
  });
}
