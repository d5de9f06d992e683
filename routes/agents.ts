/**
 * Per-agent settings. Skills enabled for an agent (used by its turns that name no `skills`):
 * - PUT /v1/agents/{agent_id}/skills `{enabled: [name…]}` — replace the list; 400 `unknown_skill`
 *   names every skill that is not installed. The body may carry the `agent_id` GET answers with
 *   (what was read can be sent back); another agent's id is 400 `invalid_request`.
 * - GET /v1/agents/{agent_id}/skills — `{agent_id, enabled}` (empty for an agent never set).
 */
import { z } from 'zod';
import { HttpError } from '../src/http/errors.js';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { quoteForDisplayClipped } from '../src/unsafe-chars.js';
import { skillRegistry } from './skills.js';
import { AgentId, SkillNames } from './turn-schemas.js';

const AgentParams = z.object({ agent_id: AgentId });
/** `agent_id`, when sent, must be the path's: GET's answer can be PUT back as it is. */
const PutSkillsBody = z.strictObject({ agent_id: z.string().optional(), enabled: SkillNames });

export const agentRoutes: RoutePlugin = async (app, { services }) => {
  app.put('/v1/agents/:agent_id/skills', async (request) => {
    const { agent_id } = AgentParams.parse(request.params);
    const body = PutSkillsBody.parse(request.body ?? undefined);
    if (body.agent_id !== undefined && body.agent_id !== agent_id) {
      const message = `is ${quoteForDisplayClipped(body.agent_id)}, but the path names agent ${quoteForDisplayClipped(agent_id)}: send the path's agent_id, or leave it out`;
      throw new HttpError(400, 'invalid_request', `agent_id ${message}`, [{ path: 'agent_id', code: 'agent_mismatch', message }]);
    }
    return { agent_id, enabled: await skillRegistry(services).setEnabled(agent_id, body.enabled) };
  });

  app.get('/v1/agents/:agent_id/skills', async (request) => {
    const { agent_id } = AgentParams.parse(request.params);
    return { agent_id, enabled: await skillRegistry(services).enabledFor(agent_id) };
  });
};
