/**
 * The skills of one turn, resolved once per {@link TurnContext} (cached) from the turn's own
 * `skills` list or, when it has none, the agent's enabled list:
 * - `skills`: enabled and visible in this kind of turn (frontmatter `runtime` `any` or `main`;
 *   `background_job` skills are not offered in main or scheduled turns; a background job's turns
 *   get `any` and `background_job` skills, not `main` ones);
 * - `servers`: the MCP servers commands may call, after these rules: the same server declared
 *   differently by two enabled skills is withheld (`conflicting MCP server declaration "<name>" in
 *   enabled skills <a>, <b>`); at most {@link MAX_SERVERS_PER_TURN} distinct servers; with
 *   COMPUTER_NETWORK=off a streamable_http server cannot be reached and is withheld;
 * - `problems`: one line per thing withheld, shown in `turn.started.unavailable` (family `skills`).
 * With a shared catalog (several instances on Postgres) the registry is synced before the names
 * are looked up (not for a turn without skills), so a skill installed or deleted on another
 * instance counts for this turn.
 */
import { isDeepStrictEqual } from 'node:util';
import type { TurnContext } from '../assembly/context.js';
import type { McpServerDecl } from './mcp-manifest.js';
import type { Skill } from './skill-folder.js';

export const MAX_SERVERS_PER_TURN = 32;

/** One usable MCP server and the enabled skills that declare it. */
export interface TurnMcpServer {
  decl: McpServerDecl;
  skills: string[];
}

export interface TurnSkills {
  skills: Skill[];
  servers: TurnMcpServer[];
  problems: string[];
}

const cache = new WeakMap<TurnContext, Promise<TurnSkills>>();

/**
 * The turn's skills (empty when there is no skill registry or nothing is enabled), resolved once
 * per context. @throws DatabaseUnavailableError when a shared catalog cannot be read.
 */
export function turnSkills(ctx: TurnContext): Promise<TurnSkills> {
  let t = cache.get(ctx);
  if (!t) {
    t = resolve(ctx);
    cache.set(ctx, t);
    t.catch(() => cache.delete(ctx)); // a failed read is tried again by the next caller
  }
  return t;
}

async function resolve(ctx: TurnContext): Promise<TurnSkills> {
  const registry = ctx.services.skills;
  const empty: TurnSkills = { skills: [], servers: [], problems: [] };
  if (!registry || ctx.kind === 'workflow_task') return empty;
  const names = ctx.skills ?? (await registry.enabledFor(ctx.agentId));
  if (names.length === 0) return empty;
  await registry.sync();
  const problems: string[] = [];
  const skills: Skill[] = [];
  for (const name of names) {
    const s = registry.get(name);
    if (!s) problems.push(`skill ${name} is enabled for agent ${ctx.agentId} but not installed`);
    else if (ctx.kind === 'background_job' ? s.runtime === 'main' : s.runtime === 'background_job') problems.push(`skill ${name} is for ${s.runtime === 'main' ? 'main turns' : 'background jobs'} only (runtime: ${s.runtime})`);
    else skills.push(s);
  }
  return { skills, servers: resolveServers(skills, ctx.config.COMPUTER_NETWORK === 'on', problems), problems };
}

function withoutDescription(d: McpServerDecl): object {
  const { description: _d, ...rest } = d;
  return rest;
}

function resolveServers(skills: Skill[], network: boolean, problems: string[]): TurnMcpServer[] {
  const byName = new Map<string, TurnMcpServer & { conflict?: string[] }>();
  for (const skill of skills) {
    for (const decl of skill.mcpServers) {
      const seen = byName.get(decl.value);
      if (!seen) byName.set(decl.value, { decl, skills: [skill.name] });
      else if (isDeepStrictEqual(withoutDescription(seen.decl), withoutDescription(decl))) seen.skills.push(skill.name);
      else seen.conflict = [...(seen.conflict ?? seen.skills), skill.name];
    }
  }
  const servers: TurnMcpServer[] = [];
  for (const [name, s] of [...byName].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (s.conflict) {
      problems.push(`conflicting MCP server declaration "${name}" in enabled skills ${s.conflict.join(', ')}`);
    } else if (s.decl.transport === 'streamable_http' && !network) {
      problems.push(`MCP server "${name}" (streamable_http, skill ${s.skills.join(', ')}) is not reachable: commands have no network (COMPUTER_NETWORK=off); set COMPUTER_NETWORK=on to use it`);
    } else if (servers.length >= MAX_SERVERS_PER_TURN) {
      problems.push(`MCP server "${name}" is withheld: at most ${MAX_SERVERS_PER_TURN} MCP servers per turn`);
    } else {
      servers.push({ decl: s.decl, skills: s.skills });
    }
  }
  return servers;
}
