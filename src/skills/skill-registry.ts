/**
 * SkillRegistry: the skills this server knows and which agent has which enabled.
 * - Built-ins: every folder of SKILLS_DIR with a valid SKILL.md, read once at start, read-only
 *   (a PUT or DELETE of their name is refused with 409 `skill_builtin`). Invalid ones are skipped
 *   with a warning.
 * - Installed: `DATA_DIR/skills/<name>`, written by {@link SkillRegistry.install}.
 *   - Alone (SQLite): DATA_DIR/skills is the record; re-read at start.
 *   - With a {@link SkillCatalog} (Postgres, several instances): the catalog is the record (the
 *     uploaded archive and an etag per skill) and DATA_DIR/skills a local copy. {@link
 *     SkillRegistry.sync} compares the catalog's etags with the local copies (one small query)
 *     and unpacks what is new or replaced (staging folder + rename, so a reader never sees a
 *     half-written skill) and deletes the copies of skills uninstalled elsewhere. Routes call it
 *     before they read the skill list, turns before they resolve their skills: an install on one
 *     instance is seen by the next request or turn on any other.
 * - Enabled per agent: table `agent_skills(agent_id, enabled JSON, updated_at)` on the instance's
 *   SQLite database, or on Postgres with a catalog. A turn's own `skills` list, when given,
 *   replaces the agent's for that turn. Deleting an installed skill takes it out of every agent's
 *   list (so a list read back can be PUT again, and a reinstall enables it for nobody).
 * Errors are {@link HttpError}s with the codes routes return; with a catalog, any method that
 * reads it may also throw DatabaseUnavailableError (503 `database_unavailable`).
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { HttpError, notFoundHint } from '../http/errors.js';
import type { Database } from '../store/database.js';
import { SkillArchiveError } from './archive-entries.js';
import type { SkillCatalog, SkillVersion } from './skill-catalog.js';
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
  /** The installed skills and enabled lists shared by several instances (Postgres); absent → this instance's own. */
  catalog?: SkillCatalog;
  /**
   * With a catalog: where a folder of `installDir` the catalog does not know is moved at start
   * (installed before the instance shared a database) [`<installDir>-unshared`].
   */
  unsharedDir?: string;
  log?: { warn: (o: object, m?: string) => void };
}

/** The refusal of an unknown skill name in an enable list or a turn's `skills`. */
export function unknownSkills(names: string[]): HttpError {
  return new HttpError(400, 'unknown_skill', `unknown skill${names.length > 1 ? 's' : ''}: ${names.join(', ')} (GET /v1/skills lists the installed ones)`, { unknown: names });
}

export class SkillRegistry {
  private readonly skills = new Map<string, Skill>();
  /** With a catalog: the etag of each local copy (also of one that failed to unpack, so it is not fetched again). */
  private readonly etags = new Map<string, string>();
  private readonly stmts;
  /** Serializes installs, deletes and syncs (one writer at a time). */
  private writing: Promise<unknown> = Promise.resolve();
  /** The sync in progress, and the one queued behind it (which every later caller joins). */
  private syncRunning: Promise<void> | undefined;
  private syncQueued: Promise<void> | undefined;

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
      // Rewrites, in one statement, every list that holds the name: the others in their order.
      disable: o.db.prepare<{ name: string; now: string }>(
        `UPDATE agent_skills SET updated_at = @now,
           enabled = (SELECT json_group_array(value) FROM (SELECT value FROM json_each(agent_skills.enabled) WHERE value <> @name ORDER BY key))
         WHERE EXISTS (SELECT 1 FROM json_each(agent_skills.enabled) WHERE value = @name)`,
      ),
    };
  }

  /**
   * Read SKILLS_DIR and the installed skills: DATA_DIR/skills alone, or with a catalog its skills
   * (unpacked into DATA_DIR/skills; local folders it does not know are moved to `unsharedDir`
   * with a warning). Never throws for a bad skill (it is skipped and logged).
   * @throws ConfigError when SKILLS_DIR is set but cannot be listed (missing, a file, no permission);
   *   DatabaseUnavailableError when the catalog cannot be read.
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
      if (source === 'installed' && this.o.catalog) {
        await this.adoptLocalCopies(names);
        continue;
      }
      for (const name of names.sort()) {
        if (name.startsWith('.')) {
          if (source === 'installed') await rm(path.join(dir, name), { recursive: true, force: true }); // an interrupted install
          continue;
        }
        if (!SKILL_NAME.test(name)) continue;
        if (source === 'installed' && this.skills.get(name)?.source === 'builtin') continue;
        try {
          this.skills.set(name, await readSkillFolder(path.resolve(dir, name), source, this.stored(name)));
        } catch (err) {
          this.o.log?.warn({ err: (err as Error).message, skill: name, dir }, 'skipping invalid skill folder');
        }
      }
    }
    await this.sync();
  }

  /** At start with a catalog: drop leftovers of interrupted installs, move aside folders the catalog does not know. */
  private async adoptLocalCopies(names: string[]): Promise<void> {
    const known = await this.o.catalog!.versions();
    const aside = this.o.unsharedDir ?? `${this.o.installDir}-unshared`;
    for (const name of names.sort()) {
      const dir = path.join(this.o.installDir, name);
      if (name.startsWith('.')) await rm(dir, { recursive: true, force: true });
      else if (!known.has(name)) {
        await mkdir(aside, { recursive: true, mode: 0o755 });
        const to = path.join(aside, `${name}-${Date.now()}`);
        await rename(dir, to);
        this.o.log?.warn({ skill: name, moved_to: to }, 'a skill folder in DATA_DIR/skills is not installed in the shared database: moved aside; install it again with PUT /v1/skills/{name} to share it');
      }
      // Known ones are replaced by the sync that follows (their etag is not known locally).
    }
  }

  /**
   * Bring the local copies up to date with the catalog (no-op without one): unpack every skill
   * installed or replaced since the last sync, delete the copies of skills no longer installed.
   * Concurrent callers share work, but each one's sync reads the catalog after it was called. A
   * stored archive this build refuses is skipped with a warning (the skill is then missing here).
   * @throws DatabaseUnavailableError when the catalog cannot be read; file-system errors.
   */
  sync(): Promise<void> {
    if (!this.o.catalog) return Promise.resolve();
    if (this.syncQueued) return this.syncQueued;
    if (!this.syncRunning) return this.startSync();
    const queued = this.syncRunning
      .catch(() => undefined)
      .then(() => {
        this.syncQueued = undefined;
        return this.startSync();
      });
    this.syncQueued = queued;
    return queued;
  }

  private startSync(): Promise<void> {
    const run = this.serial(() => this.pull());
    this.syncRunning = run;
    run.then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      if (this.syncRunning === run) this.syncRunning = undefined;
    });
    return run;
  }

  private async pull(): Promise<void> {
    const catalog = this.o.catalog!;
    const remote = await catalog.versions();
    for (const s of [...this.skills.values()]) if (s.source === 'installed' && !remote.has(s.name)) await this.dropLocal(s.name);
    for (const name of [...this.etags.keys()]) if (!remote.has(name)) await this.dropLocal(name);
    for (const [name, v] of [...remote].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (!SKILL_NAME.test(name) || this.skills.get(name)?.source === 'builtin') continue;
      if (this.etags.get(name) === v.etag) continue;
      const stored = await catalog.archive(name);
      if (!stored) {
        await this.dropLocal(name); // uninstalled since versions() was read
        continue;
      }
      try {
        await installArchive(this.o.installDir, name, stored.archive, stored.contentType, { stored: true });
        await this.setInstalled(name, stored);
      } catch (err) {
        if (!(err instanceof SkillArchiveError || err instanceof SkillFormatError)) throw err;
        this.o.log?.warn({ err: err.message, skill: name }, 'skipping an installed skill whose stored archive this build refuses');
        this.skills.delete(name);
        this.etags.set(name, stored.etag);
      }
    }
  }

  /**
   * How a skill accepted before is read again (a built-in or installed folder at start, an
   * installed archive unpacked from the catalog): the character rules added since do not refuse it
   * (skill-format.ts SkillMdOptions, archive-entries.ts ArchiveReadOptions); what they would refuse
   * is logged, once per read.
   */
  private stored(name: string): { stored: true; warn: (message: string) => void } {
    return { stored: true, warn: (message) => this.o.log?.warn({ skill: name }, message) };
  }

  /** Record the unpacked folder of installed skill `name` (with the catalog's version, if any). */
  private async setInstalled(name: string, version?: SkillVersion): Promise<Skill> {
    const skill = await readSkillFolder(path.join(this.o.installDir, name), 'installed', this.stored(name));
    if (version) {
      skill.installedAt = version.installedAt;
      this.etags.set(name, version.etag);
    }
    this.skills.set(name, skill);
    return skill;
  }

  /** Forget installed skill `name` here and delete its local copy. */
  private async dropLocal(name: string): Promise<void> {
    if (this.skills.get(name)?.source === 'builtin') return;
    this.skills.delete(name);
    this.etags.delete(name);
    await rm(path.join(this.o.installDir, name), { recursive: true, force: true });
  }

  /** Every known skill, by name (as of the last {@link sync}: call it first with a catalog). */
  list(): Skill[] {
    return [...this.skills.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Skill `name`, or undefined (as of the last {@link sync}). */
  get(name: string): Skill | undefined {
    return this.skills.get(name);
  }

  /**
   * Install (or replace) skill `name` from an archive body. With a catalog the archive is stored
   * there too (after it unpacked here), so every instance gets it; `created` then says whether no
   * instance had it installed.
   * @throws HttpError 409 `skill_builtin`; 400 `invalid_skill_archive` (details `{entry, …}`: the
   *   refused entry, or null for the archive as a whole, see SkillArchiveError.details) or
   *   `invalid_skill` (format rules; details `{file, field, issues?}`, see SkillFormatError.details).
   */
  async install(name: string, body: Buffer, contentType: ArchiveContentType): Promise<{ skill: Skill; created: boolean }> {
    return this.serial(async () => {
      if (this.skills.get(name)?.source === 'builtin') throw builtin(name);
      const created = !this.skills.has(name);
      try {
        await installArchive(this.o.installDir, name, body, contentType);
      } catch (err) {
        if (err instanceof SkillArchiveError) throw new HttpError(400, 'invalid_skill_archive', err.message, err.details);
        if (err instanceof SkillFormatError) throw new HttpError(400, 'invalid_skill', err.message, err.details);
        throw err;
      }
      if (!this.o.catalog) return { skill: await this.setInstalled(name), created };
      let version;
      try {
        version = await this.o.catalog.put(name, body, contentType);
      } catch (err) {
        await this.dropLocal(name); // the local copy is not what the catalog holds: the next sync unpacks the catalog's, if any
        throw err;
      }
      return { skill: await this.setInstalled(name, version), created: version.created };
    });
  }

  /**
   * Delete installed skill `name` (from the catalog too, so from every instance) and take it out
   * of every agent's enabled list: with a catalog in the same Postgres transaction as the delete;
   * alone, the lists (SQLite) before the folder goes. Nothing changes when the skill is not
   * installed or is a built-in.
   * @throws HttpError 404 `skill_not_found`, 409 `skill_builtin`.
   */
  async remove(name: string): Promise<void> {
    return this.serial(async () => {
      const s = this.skills.get(name);
      if (s?.source === 'builtin') throw builtin(name);
      if (this.o.catalog) {
        const deleted = await this.o.catalog.delete(name);
        await this.dropLocal(name);
        if (!deleted) throw skillNotFound(name);
        return;
      }
      if (!s) throw skillNotFound(name);
      this.stmts.disable.run({ name, now: new Date().toISOString() });
      this.skills.delete(name);
      await rm(s.dir, { recursive: true, force: true });
    });
  }

  /** Names of unknown skills among `names` (empty when all are known; as of the last {@link sync}). */
  unknown(names: readonly string[]): string[] {
    return names.filter((n) => !this.skills.has(n));
  }

  /**
   * The skills enabled for agent `agentId`, in the order set (empty for an agent never set). A
   * deleted skill is no longer in it; a name can still be unknown here when it was a built-in of
   * SKILLS_DIR before a restart without it (its turns then list it in `unavailable`).
   */
  async enabledFor(agentId: string): Promise<string[]> {
    if (this.o.catalog) return this.o.catalog.enabledFor(agentId);
    const row = this.stmts.get.get(agentId);
    return row ? (JSON.parse(row.enabled) as string[]) : [];
  }

  /** Replace agent `agentId`'s enabled list (duplicates dropped). @throws HttpError 400 `unknown_skill`. */
  async setEnabled(agentId: string, names: string[]): Promise<string[]> {
    await this.sync();
    const unknown = this.unknown(names);
    if (unknown.length > 0) throw unknownSkills(unknown);
    const unique = [...new Set(names)];
    if (this.o.catalog) await this.o.catalog.setEnabled(agentId, unique);
    else this.stmts.put.run(agentId, JSON.stringify(unique), new Date().toISOString());
    return unique;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writing.then(fn, fn);
    this.writing = next.catch(() => {});
    return next;
  }
}

/**
 * 404 `skill_not_found`: `skill "x" is not installed: check the name; GET /v1/skills lists the skills
 * there are`, details `{resource: "skill", id, list, name}` (`id` and `name` both the name).
 */
export const skillNotFound = (name: string) => {
  const { shown, hint, details } = notFoundHint('skill', name, '/v1/skills', 'skills', 'name');
  return new HttpError(404, 'skill_not_found', `skill ${shown} is not installed: ${hint}`, { ...details, name: details.id });
};
const builtin = (name: string) => new HttpError(409, 'skill_builtin', `skill ${name} is a built-in from SKILLS_DIR and cannot be replaced or deleted over the API`, { name });
