/**
 * Reading a skill: from a folder on disk (SKILLS_DIR built-ins, installed skills at start) or
 * from unpacked archive entries (before they are written). Both check the same format rules
 * (skill-format.ts, mcp-manifest.ts) and give a {@link Skill}.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ArchiveEntry } from './archive-entries.js';
import { SkillArchiveError } from './archive-entries.js';
import { escapeUnsafeChars, quoteForDisplay } from '../unsafe-chars.js';
import { parseMcpManifest, type McpServerDecl } from './mcp-manifest.js';
import { MAX_SKILL_MD_BYTES, parseSkillMd, SkillFormatError, type SkillMdOptions, type SkillRuntime } from './skill-format.js';

export const SKILL_MD = 'SKILL.md';
export const MANIFEST = 'agents/openai.yaml';

/** A usable skill. */
export interface Skill {
  name: string;
  description: string;
  runtime: SkillRuntime;
  /** `builtin`: from SKILLS_DIR (read-only); `installed`: through PUT /v1/skills/{name}. */
  source: 'builtin' | 'installed';
  /** Absolute folder holding SKILL.md. */
  dir: string;
  /** MCP servers from agents/openai.yaml (empty when there is none). */
  mcpServers: McpServerDecl[];
  /** ISO 8601 install time (installed skills), else null. */
  installedAt: string | null;
}

/**
 * Check a skill's SKILL.md text (and manifest bytes, if any) for the skill named `name`
 * (`opts`: see SkillMdOptions). `nameFrom` says where `name` comes from, for the refusal of a
 * frontmatter name that differs: `url` (PUT /v1/skills/{name}: change SKILL.md's name or the URL's)
 * or `folder` (a folder on disk: change SKILL.md's name or rename the folder).
 * @throws SkillFormatError when a rule is broken or the frontmatter name is not `name` (both
 *   names quoted, with what to change).
 */
export function checkSkill(name: string, skillMd: string, manifest: Buffer | undefined, opts: SkillMdOptions = {}, nameFrom: 'url' | 'folder' = 'folder') {
  const { frontmatter } = parseSkillMd(skillMd, opts);
  if (frontmatter.name !== name) {
    const [got, want] = [quoteForDisplay(frontmatter.name), quoteForDisplay(name)];
    const fix =
      nameFrom === 'url'
        ? `the skill name ${want} in the URL: change SKILL.md's name to ${want}, or send the archive to PUT /v1/skills/${escapeUnsafeChars(frontmatter.name)} instead`
        : `the skill name ${want} (its folder's name): change SKILL.md's name to ${want}, or rename the folder to ${got}`;
    throw new SkillFormatError(`SKILL.md frontmatter name ${got} does not match ${fix}`, SKILL_MD, 'name');
  }
  return { ...frontmatter, mcpServers: manifest ? parseMcpManifest(manifest) : [] };
}

/**
 * Check unpacked archive entries for skill `name`: SKILL.md at the root, valid frontmatter and
 * manifest (`opts`: see SkillMdOptions). @throws SkillArchiveError / SkillFormatError.
 */
export function checkArchiveSkill(name: string, entries: ArchiveEntry[], opts: SkillMdOptions = {}) {
  const file = (p: string) => entries.find((e) => e.kind === 'file' && e.path === p) as Extract<ArchiveEntry, { kind: 'file' }> | undefined;
  const md = file(SKILL_MD);
  if (!md) {
    const nested = entries.find((e) => e.kind === 'file' && e.path.endsWith(`/${SKILL_MD}`));
    throw new SkillArchiveError(`SKILL.md must be at the archive root${nested ? ` (found ${nested.path}: archive the folder's contents, not the folder)` : ''}`, nested?.path, { missing: SKILL_MD });
  }
  if (md.data.length > MAX_SKILL_MD_BYTES) throw new SkillFormatError(`SKILL.md must be at most ${MAX_SKILL_MD_BYTES} bytes`, SKILL_MD);
  return checkSkill(name, md.data.toString('utf8'), file(MANIFEST)?.data, opts, 'url');
}

/**
 * Read and check the skill folder `dir` (its base name is the skill name). Folders read here were
 * accepted before (built-ins, installed skills): pass `{stored: true, warn}` so a description an
 * older version accepted is kept, escaped (SkillMdOptions).
 */
export async function readSkillFolder(dir: string, source: Skill['source'], opts: SkillMdOptions = {}): Promise<Skill> {
  const name = path.basename(dir);
  const mdPath = path.join(dir, SKILL_MD);
  const st = await stat(mdPath).catch(() => null);
  if (!st?.isFile()) throw new SkillFormatError(`${mdPath} is missing`, SKILL_MD);
  if (st.size > MAX_SKILL_MD_BYTES) throw new SkillFormatError(`SKILL.md must be at most ${MAX_SKILL_MD_BYTES} bytes`, SKILL_MD);
  const manifest = await readFile(path.join(dir, MANIFEST)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  const checked = checkSkill(name, await readFile(mdPath, 'utf8'), manifest, opts);
  return {
    name,
    description: checked.description,
    runtime: checked.runtime,
    source,
    dir,
    mcpServers: checked.mcpServers,
    installedAt: source === 'installed' ? st.mtime.toISOString() : null,
  };
}
