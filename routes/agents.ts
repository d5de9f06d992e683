/**
 * Per-agent settings. Skills enabled for an agent (used by its turns that name no `skills`):
 * - PUT /v1/agents/{agent_id}/skills `{enabled: [name…]}` — replace the list; 400 `unknown_skill`
 *   names every skill that is not installed.
 * - GET /v1/agents/{agent_id}/skills — `{agent_id, enabled}` (empty for an agent never set).
 */
import { z } from 'zod';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { skillRegistry } from './skills.js';
import { AgentId, SkillNames } from './turn-schemas.js';

const AgentParams = z.object({ agent_id: AgentId });
const PutSkillsBody = z.strictObject({ enabled: SkillNames });

export const agentRoutes: RoutePlugin = async (app, { services }) => {
  app.put('/v1/agents/:agent_id/skills', async (request) => {
    const { agent_id } = AgentParams.parse(request.params);
    const body = PutSkillsBody.parse(request.body ?? undefined);
    return { agent_id, enabled: await skillRegistry(services).setEnabled(agent_id, body.enabled) };
  });

  app.get('/v1/agents/:agent_id/skills', async (request) => {
    const { agent_id } = AgentParams.parse(request.params);
    return { agent_id, enabled: await skillRegistry(services).enabledFor(agent_id) };
  });
};
