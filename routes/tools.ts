/**
 * POST /v1/tools/preview — the exact tool definitions the model would receive for a turn
 * configuration: runs the same assembler as a real turn (src/assembly/assemble.ts) and the
 * runtime's provider-tool builder. Nothing is executed.
 */
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { PreviewToolsBody } from './turn-schemas.js';

export const toolRoutes: RoutePlugin = async (app, { services }) => {
  app.post('/v1/tools/preview', async (request) => {
    const body = PreviewToolsBody.parse(request.body ?? {});
    return services.turns.previewTools(body);
  });
};
