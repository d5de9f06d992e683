/**
 * zod schemas of the workflow endpoints' requests (openapi.yaml mirrors them). Types only: the
 * result-schema subset and the limits are checked by the service (src/workflows/validate-input.ts)
 * so REST and `workflow_start` give the same `details` lines.
 */
import { z } from 'zod';
import { ModelNameSchema } from '../src/model/model-name.js';
import { WORKFLOW_STATUSES } from '../src/workflows/types.js';
import { MAX_CONCURRENCY } from '../src/workflows/validate-input.js';
import { textField } from '../src/turns/request-schemas.js';
import { AgentId } from './turn-schemas.js';
import { emptyBody } from './empty-body.js';
import { WorkflowWebhookSpecSchema } from '../src/webhooks/webhook-spec.js';
import { queryInt } from '../src/http/query-int.js';
import { QueryCursor } from '../src/list-cursor.js';
import { nullAsAbsent } from '../src/zod-null-fields.js';

/**
 * POST /v1/workflows body; an optional top-level field sent as `null` is read as left out
 * (src/zod-null-fields.ts). The title's and labels' emptiness, length and characters, like a
 * prompt's length, are the workflow rules' (src/workflows/validate-input.ts: 400
 * `invalid_workflow`, as in `workflow_start`), not this schema's: `""` and `"  "` get the same answer.
 */
export const CreateWorkflowBody = nullAsAbsent(z.strictObject({
  agent_id: AgentId.default('default'),
  title: z.string(),
  tasks: z
    .array(
      z.strictObject({
        label: z.string(),
        /** What the task turn is asked; empty or whitespace-only is refused like a blank turn `input`. */
        prompt: textField(),
        result_schema: z.record(z.string(), z.unknown()),
      }),
    )
    .min(1),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).optional(),
  /** Task turns get recall/get_page over the agent's brain pages. */
  brain: z.boolean().optional(),
  /** Model of the task turns (default: the server's MODEL). */
  model: ModelNameSchema.optional(),
  /** Where to POST the workflow's terminal event (src/webhooks/). */
  webhook: WorkflowWebhookSpecSchema.optional(),
}));

export const WorkflowIdParams = z.object({ id: z.string().min(1).max(100) });

export const ListWorkflowsQuery = z.object({
  agent_id: AgentId.optional(),
  status: z.enum([...WORKFLOW_STATUSES, 'live', 'done']).optional(),
  limit: queryInt(1, 100, 20),
  /**
   * The `next_cursor` of the previous page (src/list-cursor.ts `encodeQueryCursor`: the last workflow's
   * id, the list's mark and a fingerprint of agent_id and status); checked against this
   * list and request by the route (`queryPaging`).
   */
  cursor: QueryCursor.optional(),
});

/** POST /v1/workflows/{id}/cancel: no body or `{}`; any field is 400 `… cancel takes no fields; send no body or {}`. */
export const CancelWorkflowBody = emptyBody('cancel');

/** GET /v1/workflows/{id}/events: `after` (src/http/resume-point.ts), `stream_token` (src/http/stream-token.ts). */
export const WorkflowEventsQuery = z.object({ after: z.string().optional(), stream_token: z.string().optional() });
