/**
 * Control-plane services a family creator may need, passed in per turn (no singletons).
 * Each family that needs a service has its own optional member here; a creator whose service is absent reports
 * the family as unavailable instead of failing.
 */
import type { BrainStore } from '../brain/brain-store.js';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import type { SkillRegistry } from '../skills/skill-registry.js';
import { loadSecrets, type SkillSecrets } from '../skills/secrets.js';
import type { ScheduleService } from '../schedules/types.js';
import type { WorkflowService } from '../workflows/types.js';
import type { ClarifyPolicyResolver } from '../tools/clarify/policy.js';
import type { InstanceHomeLock } from '../tools/computer/home-lock.js';
import type { JobService } from '../jobs/job-service.js';

export interface ServiceRegistry {
  /** Schedules control plane (src/schedules/); absent → the `schedule` family is unavailable. */
  schedules?: ScheduleService;
  /** Workflows control plane (src/workflows/); absent → the `workflow` family is unavailable. */
  workflows?: WorkflowService;
  /** Per-agent brain pages (src/brain/); absent → recall/get_page are unavailable. */
  brain?: BrainStore;
  /** Installed and built-in skills, enabled lists (src/skills/); absent → no skills in any turn. */
  skills?: SkillRegistry;
  /** Reply attachments (src/attachments/); absent → no `reply_attachment` tool. */
  attachments?: AttachmentStore;
  /** Chooses what a `clarify` call does to a turn (src/tools/clarify/policy.ts); absent or undefined → it ends the turn. */
  clarifyPolicy?: ClarifyPolicyResolver;
  /** The agent-home lock across instances (Postgres advisory lock; set with DATABASE_URL); absent → in-process only. */
  homeLocks?: InstanceHomeLock;
  /** Background jobs (src/jobs/); absent → the `jobs` family is unavailable. */
  jobs?: JobService;
  /**
   * The SKILL_SECRETS values, the same for every reader: a refused edit of the file keeps the
   * previous values (src/skills/secrets.ts SkillSecrets); absent → the file is read as it is at
   * each use ({@link readSkillSecrets}).
   */
  skillSecrets?: SkillSecrets;
  [name: string]: unknown;
}

/**
 * The SKILL_SECRETS values for a turn's readers: the service's {@link SkillSecrets} (a refused
 * edit keeps the previous values), or without one the file `file` as it is now.
 * @throws as src/skills/secrets.ts loadSecrets when there are no values to fall back on.
 */
export async function readSkillSecrets(services: ServiceRegistry, file: string | undefined): Promise<Map<string, string>> {
  return services.skillSecrets ? services.skillSecrets.read() : loadSecrets(file);
}
