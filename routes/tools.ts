/**
 * POST /v1/tools/preview — the exact tool definitions the model would receive for a turn
 * configuration: runs the same assembler as a real turn (src/assembly/assemble.ts) and the
 * runtime's provider-tool builder. Nothing is executed. `skills` (as on POST /v1/turns) previews a
 * turn with that list instead of the agent's enabled skills; 400 `unknown_skill` names any not installed.
 */
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { assertKnownSkills } from './skills.js';
import { PreviewToolsBody } from './turn-schemas.js';

export const toolRoutes: RoutePlugin = async (app, { services }) => {
  app.post('/v1/tools/preview', async (request) => {
    const body = PreviewToolsBody.parse(request.body ?? {});
    if (body.skills) await assertKnownSkills(services, body.skills);
    return services.turns.previewTools(body);
  });
};
