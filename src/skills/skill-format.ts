/**
 * The Agent Skills folder format as this service reads it: a folder whose `SKILL.md` starts with
 * YAML frontmatter between `---` lines, holding `name` ({@link SKILL_NAME}) and `description`,
 * optionally `runtime` (`any` | `main` | `background_job`; absent = `any`: where the skill is
 * visible). Other frontmatter keys (license, metadata, allowed-tools…) are kept but not used.
 * Optional folders `scripts/`, `references/`, `assets/` and the file `agents/openai.yaml`
 * (MCP dependencies, see mcp-manifest.ts) may sit beside it. See README.md "Skills".
 */
import { parse as parseYaml } from 'yaml';
import { namePatternProblem, type NamePattern } from '../name-pattern.js';
import { describeFoundUnsafeChar, escapeUnsafeChars, findUnsafeChar, noVisibleCharProblem, UNSAFE_CHAR_KINDS } from '../unsafe-chars.js';

/** A skill name: lower-case letter first, then up to 63 of `a-z 0-9 _ -`. */
export const SKILL_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
/** {@link SKILL_NAME} for refusals that show the name sent and what is allowed (src/name-pattern.ts). */
export const SKILL_NAME_RULE: NamePattern = {
  pattern: SKILL_NAME,
  char: /[a-z0-9_-]/,
  first: /[a-z]/,
  maxChars: 64,
  words: 'lowercase letters a–z, digits, "_" and "-", starting with a letter',
};
/** Max `description` length, characters. */
export const MAX_DESCRIPTION_CHARS = 1024;
/** Max size of SKILL.md, bytes. */
export const MAX_SKILL_MD_BYTES = 256 * 1024;

export const SKILL_RUNTIMES = ['any', 'main', 'background_job'] as const;
export type SkillRuntime = (typeof SKILL_RUNTIMES)[number];

/** One problem of a file, as the 400's details list them: `path` spelled as in every error (`dependencies.tools[0].env`). */
export interface SkillFileIssue {
  path: string;
  code: string;
  message: string;
}

/**
 * A skill folder that does not follow the format; `message` says what to fix. Routes answer 400
 * `invalid_skill` with {@link SkillFormatError.details}: `file` the file that breaks a rule, as
 * named in the folder (`SKILL.md`, `agents/openai.yaml`); `field` the field in it that is wrong
 * (a frontmatter key such as `description`, a manifest path such as `dependencies.tools[0].env`),
 * or null when the file as a whole is (missing, too large, no frontmatter, not YAML); `issues`
 * every problem the manifest's schema found (the message names the first five).
 */
export class SkillFormatError extends Error {
  constructor(message: string, public readonly file: string, public readonly field: string | null = null, public readonly issues?: readonly SkillFileIssue[]) {
    super(message);
    this.name = 'SkillFormatError';
  }

  /** The 400's details: `{file, field}`, plus `issues` when the manifest's schema found problems. */
  get details(): { file: string; field: string | null; issues?: SkillFileIssue[] } {
    return this.issues ? { file: this.file, field: this.field, issues: [...this.issues] } : { file: this.file, field: this.field };
  }
}

const SKILL_MD = 'SKILL.md';

/**
 * Why a SKILL.md `description` cannot be shown to people and the model for its characters, or
 * undefined: it is plain text that may run over several lines (a YAML block scalar), so line
 * breaks and tabs are text, but any other character src/unsafe-chars.ts lists (another control
 * character, a line or paragraph separator, an invisible character such as U+200B or a tag character, a bidirectional control: U+202E
 * would show it reversed in the skills list) is refused, named, as is a description with no
 * visible character (only blank letters such as U+3164, combining marks or format characters).
 */
function descriptionProblem(description: string): string | undefined {
  const found = findUnsafeChar(description.replace(/[\n\t]/g, ' '));
  if (found !== undefined) {
    return `must not contain ${describeFoundUnsafeChar(found)}: a description is plain text (line breaks and tabs allowed) without other ${UNSAFE_CHAR_KINDS}; remove it`;
  }
  return noVisibleCharProblem(description, 'describe what the skill does in words');
}

/** `description` with the characters {@link descriptionProblem} refuses written as `\\uXXXX` (line breaks and tabs kept). */
function escapeDescription(description: string): string {
  return description
    .split(/([\n\t])/)
    .map((part, i) => (i % 2 === 1 ? part : escapeUnsafeChars(part)))
    .join('');
}

/**
 * How SKILL.md is checked. Without `stored` (an install: PUT /v1/skills/{name}) every rule
 * refuses. With `stored` (a skill accepted before: a built-in, an installed skill read again at
 * start or unpacked again from the shared catalog) the description's character rules, added after
 * skills were already installed, do not: a description with characters src/unsafe-chars.ts lists
 * is kept with them written as `\\uXXXX` (one with no visible character, as it is), and `warn` is
 * told why — so an upgrade does not make the skill vanish.
 */
export interface SkillMdOptions {
  stored?: boolean;
  /** Told (once per read) what a `stored` SKILL.md breaks that an install would refuse. */
  warn?: (message: string) => void;
}

export interface SkillFrontmatter {
  name: string;
  description: string;
  runtime: SkillRuntime;
}

/** SKILL.md split into its frontmatter and its body (the text after the closing `---`). */
export interface ParsedSkillMd {
  frontmatter: SkillFrontmatter;
  body: string;
}

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** `text` without a leading frontmatter block (unchanged when it has none). */
export function stripFrontmatter(text: string): string {
  const m = FRONTMATTER.exec(text);
  return m ? text.slice(m[0].length) : text;
}

/**
 * Parse and check SKILL.md (`opts`: {@link SkillMdOptions}).
 * @throws SkillFormatError when the frontmatter is missing, not YAML, or `name`/`description`/
 *   `runtime` are missing or invalid (a description with a bidi control or no visible character
 *   included, unless `opts.stored`).
 */
export function parseSkillMd(text: string, opts: SkillMdOptions = {}): ParsedSkillMd {
  const m = FRONTMATTER.exec(text);
  if (!m) throw new SkillFormatError('SKILL.md must start with YAML frontmatter between "---" lines (with name and description)', SKILL_MD);
  let data: unknown;
  try {
    data = parseYaml(m[1], { maxAliasCount: 16 });
  } catch (err) {
    throw new SkillFormatError(`SKILL.md frontmatter is not valid YAML: ${(err as Error).message.split('\n')[0]}`, SKILL_MD);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new SkillFormatError('SKILL.md frontmatter must be a YAML mapping', SKILL_MD);
  const fm = data as Record<string, unknown>;
  const nameProblem = namePatternProblem(fm.name, SKILL_NAME_RULE);
  if (nameProblem !== undefined) throw new SkillFormatError(`SKILL.md frontmatter "name" ${nameProblem}`, SKILL_MD, 'name');
  // The characters first, on the text as sent: trim() strips U+FEFF, which is refused, not stripped.
  const descriptionChars = typeof fm.description === 'string' ? descriptionProblem(fm.description) : undefined;
  if (descriptionChars && !opts.stored) throw new SkillFormatError(`SKILL.md frontmatter "description" ${descriptionChars}`, SKILL_MD, 'description');
  if (typeof fm.description !== 'string' || fm.description.trim() === '') {
    throw new SkillFormatError('SKILL.md frontmatter "description" must be a non-empty string', SKILL_MD, 'description');
  }
  if (fm.description.length > MAX_DESCRIPTION_CHARS) {
    throw new SkillFormatError(`SKILL.md frontmatter "description" must be at most ${MAX_DESCRIPTION_CHARS} characters`, SKILL_MD, 'description');
  }
  let description = fm.description.trim();
  if (descriptionChars) {
    description = escapeDescription(description);
    opts.warn?.(`SKILL.md frontmatter "description" ${descriptionChars.split(':')[0]}, which an install now refuses: the skill is kept, its description shown with such characters as \\uXXXX; install it again with a plain description`);
  }
  const runtime = fm.runtime ?? 'any';
  if (typeof runtime !== 'string' || !(SKILL_RUNTIMES as readonly string[]).includes(runtime)) {
    throw new SkillFormatError(`SKILL.md frontmatter "runtime" must be one of ${SKILL_RUNTIMES.join(', ')}`, SKILL_MD, 'runtime');
  }
  return {
    frontmatter: { name: fm.name as string /* namePatternProblem passed it */, description, runtime: runtime as SkillRuntime },
    body: text.slice(m[0].length),
  };
}
