/**
 * The `brain` family: read-only `recall` and `get_page` over the agent's brain pages. Assembled
 * when the turn asked for `brain: true` (main, scheduled and workflow task turns alike); absent
 * otherwise. Pages are written over REST (routes/brain.ts), never by these tools.
 */
import type { FamilyCreator } from '../../assembly/family.js';
import { createGetPageTool } from './get-page.js';
import { createRecallTool } from './recall.js';

export const brainFamily: FamilyCreator = {
  family: 'brain',
  create(ctx) {
    if (!ctx.brain) return { tools: [] };
    const store = ctx.services.brain;
    if (!store) return { unavailable: 'brain store not configured on this server' };
    return { tools: [createRecallTool(store), createGetPageTool(store)] };
  },
};
