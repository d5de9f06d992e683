/**
 * Names of the agent's schedules for this turn's activity labels (`describeActivity` is
 * synchronous and cannot read the store): filled when the family is assembled and kept up to date
 * by the tools' own reads and writes. Ids of other agents are never stored.
 */
import type { Schedule, ScheduleService } from '../../schedules/types.js';

export class ScheduleNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly agentId: string) {}

  /** Read the agent's schedules (up to 200, newest first) once. */
  static async load(service: ScheduleService, agentId: string): Promise<ScheduleNames> {
    const names = new ScheduleNames(agentId);
    for (const s of (await service.list({ agent_id: agentId, limit: 200 })).data) names.remember(s);
    return names;
  }

  /** Keep `s`'s name (only for this agent's schedules). */
  remember(s: Schedule): void {
    if (s.agent_id === this.agentId) this.names.set(s.id, s.name);
  }

  /** The name of this agent's schedule `id`, or undefined when unknown. */
  get(id: string): string | undefined {
    return this.names.get(id);
  }
}
