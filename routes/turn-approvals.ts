/**
 * Tool approvals of a turn (README "Tool approvals"):
 * - POST /v1/turns/{id}/approvals `{call_id, decision: approve|reject, reason?, arguments?}` —
 *   record a decision (src/turns/approvals/approval-service.ts); 200 with the approval and the
 *   turn's status. Edited arguments are stored as the tool's schema parsed them. Repeating the
 *   recorded decision (arguments compared in parsed form; a plain approve repeats any approval)
 *   → 200, the same result; another one → 409.
 * - GET /v1/turns/{id}/approvals — every approval of the turn, pending and decided.
 */
import { z } from 'zod';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { notFound } from '../src/http/errors.js';
import { TurnIdParams } from './turn-schemas.js';
import { nullAsAbsent } from '../src/zod-null-fields.js';

/** POST /v1/turns/{id}/approvals body; `reason` or `arguments` sent as `null` is read as left out (as GET shows an unset one). */
export const ApprovalDecisionBody = nullAsAbsent(z
  .strictObject({
    call_id: z.string().min(1).max(200),
    decision: z.enum(['approve', 'reject']),
    /** Why (shown to the model for a rejection: `Error: the user rejected this call: <reason>`). */
    reason: z.string().max(2000).optional(),
    /** Approve only: run the call with these arguments instead (checked by the tool's schema). */
    arguments: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((b) => b.arguments === undefined || b.decision === 'approve', { message: 'arguments may only be given with decision "approve"', path: ['arguments'] }));

export const turnApprovalRoutes: RoutePlugin = async (app, { services }) => {
  app.post('/v1/turns/:id/approvals', async (request) => {
    const { id } = TurnIdParams.parse(request.params);
    const body = ApprovalDecisionBody.parse(request.body ?? undefined);
    if (!(await services.turns.get(id))) throw notFound('turn', id);
    const approval = await services.approvals.decide(id, body);
    const turn = await services.turns.get(id);
    return { ...approval, turn_status: turn!.status };
  });

  app.get('/v1/turns/:id/approvals', async (request) => {
    const { id } = TurnIdParams.parse(request.params);
    if (!(await services.turns.get(id))) throw notFound('turn', id);
    return { data: await services.approvals.list(id) };
  });
};
