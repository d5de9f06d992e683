/**
 * SkillRegistry: the skills this server knows and which agent has which enabled.
 * - Built-ins: every folder of SKILLS_DIR with a valid SKILL.md, read once at start, read-only
 *   (a PUT or DELETE of their name is refused with 409 `skill_builtin`). Invalid ones are skipped
 *   with a warning.
 * - Installed: `DATA_DIR/skills/<name>`, written by {@link SkillRegistry.install}; re-read at start.
 * - Enabled per agent: table `agent_skills(agent_id, enabled JSON, updated_at)` on the shared
 *   database. A turn's own `skills` list, when given, replaces the agent's for that turn.
 * Errors are {@link HttpError}s with the codes routes return.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { HttpError } from '../http/errors.js';
import type { Database } from '../store/database.js';
import { SkillArchiveError } from './archive-entries.js';
import { SkillFormatError, SKILL_NAME } from './skill-format.js';
import { readSkillFolder, type Skill } from './skill-folder.js';
import { installArchive, type ArchiveContentType } from './skill-install.js';
import { skillsDirError } from './startup-paths.js';

/** The public view of a skill (GET /v1/skills). */
export interface SkillSummary {
  name: string;
  description: string;
  runtime: Skill['runtime'];
  source: Skill['source'];
  /** MCP server names from agents/openai.yaml. */
  mcp_servers: string[];
  installed_at: string | null;
}

export function summarize(s: Skill): SkillSummary {
  return { name: s.name, description: s.description, runtime: s.runtime, source: s.source, mcp_servers: s.mcpServers.map((m) => m.value), installed_at: s.installedAt };
}

export interface SkillRegistryOptions {
  db: Database;
  /** Where installed skills live (DATA_DIR/skills). */
  installDir: string;
  /** SKILLS_DIR (built-ins), if set. */
  builtinsDir?: string;
  log?: { warn: (o: object, m?: string) => void };
}

/** The refusal of an unknown skill name in an enable list or a turn's `skills`. */
export function unknownSkills(names: string[]): HttpError {
  return new HttpError(400, 'unknown_skill', `unknown skill${names.length > 1 ? 's' : ''}: ${names.join(', ')} (GET /v1/skills lists the installed ones)`, { unknown: names });
}

export class SkillRegistry {
  private readonly skills = new Map<string, Skill>();
  private readonly stmts;
  /** Serializes installs and deletes (one writer at a time). */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: SkillRegistryOptions) {
    o.db.exec(`CREATE TABLE IF NOT EXISTS agent_skills (
      agent_id TEXT PRIMARY KEY,
      enabled TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
    this.stmts = {
      get: o.db.prepare<[string], { enabled: string }>('SELECT enabled FROM agent_skills WHERE agent_id = ?'),
      put: o.db.prepare<[string, string, string]>(
        'INSERT INTO agent_skills (agent_id, enabled, updated_at) VALUES (?, ?, ?) ON CONFLICT(agent_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at',
      ),
    };
  }

  /**
   * Read SKILLS_DIR and DATA_DIR/skills. Never throws for a bad skill (it is skipped and logged).
   * @throws ConfigError when SKILLS_DIR is set but cannot be listed (missing, a file, no permission).
   */
  async load(): Promise<void> {
    await mkdir(this.o.installDir, { recursive: true, mode: 0o755 });
    for (const [dir, source] of [[this.o.builtinsDir, 'builtin'], [this.o.installDir, 'installed']] as const) {
      if (!dir) continue;
      const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
        if (source === 'builtin') throw skillsDirError(dir, err);
        this.o.log?.warn({ err, dir }, 'cannot read skills folder');
        return [] as string[];
      });
      for (const name of names.sort()) {
        if (name.startsWith('.')) {
          if (source === 'installed') await rm(path.join(dir, name), { recursive: true, force: true }); // an interrupted install
          continue;
        }
        if (!SKILL_NAME.test(name)) continue;
        if (source === 'installed' && this.skills.get(name)?.source === 'builtin') continue;
        try {
          this.skills.set(name, await readSkillFolder(path.resolve(dir, name), source));
        } catch (err) {
          this.o.log?.warn({ err: (err as Error).message, skill: name, dir }, 'skipping invalid skill folder');
        }
      }
    }
  }

  list(): Skill[] {
    return [...this.skills.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): Skill | undefined {
    return this.skills.get(name);
  }

  /**
   * Install (or replace) skill `name` from an archive body.
   * @throws HttpError 409 `skill_builtin`; 400 `invalid_skill_archive` (details.entry names the
   *   refused entry) or `invalid_skill` (format rules).
   */
  async install(name: string, body: Buffer, contentType: ArchiveContentType): Promise<{ skill: Skill; created: boolean }> {
    return this.serial(async () => {
      if (this.skills.get(name)?.source === 'builtin') throw builtin(name);
      const created = !this.skills.has(name);
      try {
        await installArchive(this.o.installDir, name, body, contentType);
      } catch (err) {
        if (err instanceof SkillArchiveError) throw new HttpError(400, 'invalid_skill_archive', err.message, err.entry === undefined ? undefined : { entry: err.entry });
        if (err instanceof SkillFormatError) throw new HttpError(400, 'invalid_skill', err.message);
        throw err;
      }
      const skill = await readSkillFolder(path.join(this.o.installDir, name), 'installed');
      this.skills.set(name, skill);
      return { skill, created };
    });
  }

  /** Delete installed skill `name`. @throws HttpError 404 `skill_not_found`, 409 `skill_builtin`. */
  async remove(name: string): Promise<void> {
    return this.serial(async () => {
      const s = this.skills.get(name);
      if (!s) throw skillNotFound(name);
      if (s.source === 'builtin') throw builtin(name);
      this.skills.delete(name);
      await rm(s.dir, { recursive: true, force: true });
    });
  }

  /** Names of unknown skills among `names` (empty when all are known). */
  unknown(names: readonly string[]): string[] {
    return names.filter((n) => !this.skills.has(n));
  }

  /** The skills enabled for agent `agentId` (possibly including names deleted since). */
  enabledFor(agentId: string): string[] {
    const row = this.stmts.get.get(agentId);
    return row ? (JSON.parse(row.enabled) as string[]) : [];
  }

  /** Replace agent `agentId`'s enabled list. @throws HttpError 400 `unknown_skill`. */
  setEnabled(agentId: string, names: string[]): string[] {
    const unknown = this.unknown(names);
    if (unknown.length > 0) throw unknownSkills(unknown);
    const unique = [...new Set(names)];
    this.stmts.put.run(agentId, JSON.stringify(unique), new Date().toISOString());
    return unique;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writing.then(fn, fn);
    this.writing = next.catch(() => {});
    return next;
  }
}

export const skillNotFound = (name: string) => new HttpError(404, 'skill_not_found', `skill ${name} is not installed`, { name });
const builtin = (name: string) => new HttpError(409, 'skill_builtin', `skill ${name} is a built-in from SKILLS_DIR and cannot be replaced or deleted over the API`, { name });
