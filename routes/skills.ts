/**
 * Skill endpoints, over `services.registry.skills` (src/skills/skill-registry.ts):
 * - PUT    /v1/skills/{name} — install or replace: the body is a `.tar.gz` (`application/gzip`
 *   or `application/x-gzip`) or `.zip` (`application/zip`) with SKILL.md at its root, at most 10 MiB (the route's own body
 *   limit: 413 `body_too_large` naming it beyond, not BODY_LIMIT_BYTES); 201 created, 200
 *   replaced; 400 `invalid_skill_archive` (details `{entry, …}`: the refused entry, or null for the
 *   archive as a whole) or `invalid_skill` (details `{file, field, issues?}`: the file and field);
 *   409 `skill_builtin` for a SKILLS_DIR skill.
 * - GET    /v1/skills — every skill (built-in and installed), by name.
 * - GET    /v1/skills/{name} — one skill and its files; 404 `skill_not_found`.
 * - DELETE /v1/skills/{name} — delete an installed skill and take it out of every agent's enabled list.
 * With DATABASE_URL the installed skills are shared by every instance: reads sync the local
 * copies with the database first (SkillRegistry.sync), so each answer reflects every install and
 * delete made before it on any instance.
 */
import { readdir } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import path from 'node:path';
import { z } from 'zod';
import type { OwnBodyLimit } from '../src/http/body-limit.js';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { HttpError } from '../src/http/errors.js';
import type { Services } from '../src/services.js';
import { MAX_ARCHIVE_BYTES } from '../src/skills/archive-entries.js';
import { namePatternString } from '../src/name-pattern.js';
import { SKILL_NAME_RULE } from '../src/skills/skill-format.js';
import { skillNotFound, summarize, unknownSkills, type SkillRegistry } from '../src/skills/skill-registry.js';
import { ACCEPTED_ARCHIVE_TYPES, type ArchiveContentType } from '../src/skills/skill-install.js';
import { escapeUnsafeCharsClipped } from '../src/unsafe-chars.js';

/** Path parameters of /v1/skills/{name}: a bad name is 400 `invalid_request` showing it and what is allowed (src/name-pattern.ts). */
export const SkillParams = z.object({ name: namePatternString(SKILL_NAME_RULE) });

/** The registry, or 503 `skills_unavailable`. */
export function skillRegistry(services: Services): SkillRegistry {
  const r = services.registry.skills;
  if (!r) throw new HttpError(503, 'skills_unavailable', 'skills are not configured on this server');
  return r;
}

/**
 * @throws HttpError 400 `unknown_skill` naming every unknown skill in `names` (after a sync with
 *   the shared catalog, if any); 503 `skills_unavailable`, `database_unavailable`.
 */
export async function assertKnownSkills(services: Services, names: string[]): Promise<void> {
  const registry = skillRegistry(services);
  await registry.sync();
  const unknown = registry.unknown(names);
  if (unknown.length > 0) throw unknownSkills(unknown);
}

const MAX_LISTED_FILES = 1000;

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort()
    .slice(0, MAX_LISTED_FILES);
}

/**
 * How the 413 of PUT /v1/skills/{name} names its limit, MAX_ARCHIVE_BYTES (10 MiB, fixed; the
 * route's `bodyLimit`): details `{limit_bytes: 10485760, source: "skill_archive"}`.
 */
export const ARCHIVE_BODY_LIMIT: OwnBodyLimit = {
  source: 'skill_archive',
  description: `the fixed ${MAX_ARCHIVE_BYTES / (1024 * 1024)} MiB cap on skill archives of PUT /v1/skills/{name}; BODY_LIMIT_BYTES does not apply to them`,
  advice: 'send a smaller archive, leaving out files the skill does not need',
};

const skillLink = (name: string) => `/v1/skills/${encodeURIComponent(name)}`;

export const skillRoutes: RoutePlugin = async (app, { services }) => {
  // The archive cap is the PUT route's own bodyLimit (ARCHIVE_BODY_LIMIT), not the parsers': a
  // parser's limit would be answered with a 413 naming BODY_LIMIT_BYTES (src/http/body-limit.ts).
  app.addContentTypeParser(Object.keys(ACCEPTED_ARCHIVE_TYPES), { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  // Any other body type reaches the handler, which answers 415 saying which types to send.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  /**
   * The archive format of the type sent (`application/x-gzip` → `application/gzip`); 415 for any
   * other, details `{content_type, accepted}` (`content_type` escaped and clipped: escapeUnsafeCharsClipped; checked before the body is parsed: a JSON type would
   * reach the JSON parser first).
   */
  const archiveType = (request: FastifyRequest): ArchiveContentType => {
    const sent = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const format = Object.hasOwn(ACCEPTED_ARCHIVE_TYPES, sent) ? ACCEPTED_ARCHIVE_TYPES[sent] : undefined;
    if (format === undefined) {
      throw new HttpError(415, 'unsupported_media_type', `send the skill as a .tar.gz with Content-Type: application/gzip (or application/x-gzip) or a .zip with Content-Type: application/zip`, {
        content_type: sent === '' ? null : escapeUnsafeCharsClipped(sent),
        accepted: Object.keys(ACCEPTED_ARCHIVE_TYPES),
      });
    }
    return format;
  };

  app.put('/v1/skills/:name', { bodyLimit: MAX_ARCHIVE_BYTES, config: { ownBodyLimit: ARCHIVE_BODY_LIMIT }, onRequest: async (request) => void archiveType(request) }, async (request, reply) => {
    const { name } = SkillParams.parse(request.params);
    const type = archiveType(request);
    if (!Buffer.isBuffer(request.body)) throw new HttpError(400, 'invalid_request', 'send the skill archive as the request body');
    const { skill, created } = await skillRegistry(services).install(name, request.body, type);
    return reply.code(created ? 201 : 200).header('Location', skillLink(name)).send({ ...summarize(skill), files: await listFiles(skill.dir) });
  });

  app.get('/v1/skills', async () => {
    const registry = skillRegistry(services);
    await registry.sync();
    return { data: registry.list().map(summarize) };
  });

  app.get('/v1/skills/:name', async (request) => {
    const { name } = SkillParams.parse(request.params);
    const registry = skillRegistry(services);
    await registry.sync();
    const skill = registry.get(name);
    if (!skill) throw skillNotFound(name);
    return { ...summarize(skill), files: await listFiles(skill.dir) };
  });

  app.delete('/v1/skills/:name', async (request) => {
    const { name } = SkillParams.parse(request.params);
    await skillRegistry(services).remove(name);
    return { name, deleted: true };
  });
};
