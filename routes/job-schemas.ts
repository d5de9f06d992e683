/** zod schemas of the background job endpoints' requests (openapi.yaml mirrors them). */
import { z } from 'zod';
import { JOB_STATUSES } from '../src/jobs/types.js';
import { MAX_INPUT_CHARS } from '../src/turns/inputs/turn-inputs.js';
import { textField } from '../src/turns/request-schemas.js';
import { AgentId } from './turn-schemas.js';
import { emptyBody } from './empty-body.js';
import { queryInt } from '../src/http/query-int.js';
import { QueryCursor } from '../src/list-cursor.js';

export const JobIdParams = z.object({ id: z.string().min(1).max(100) });

export const ListJobsQuery = z.object({
  agent_id: AgentId.optional(),
  /** A status, `live` (queued, running, waiting_on_user, waiting_on_approval) or `stop` (succeeded, failed, stopped). */
  status: z.enum([...JOB_STATUSES, 'live', 'stop']).optional(),
  limit: queryInt(1, 100, 20),
  /**
   * The `next_cursor` of the previous page (src/list-cursor.ts `encodeQueryCursor`: the last job's
   * id, the list's mark and a fingerprint of agent_id and status); checked against this
   * list and request by the route (`queryPaging`).
   */
  cursor: QueryCursor.optional(),
});

export const JobMessageBody = z.strictObject({
  /** Like a steering message's `content` (routes/turn-messages.ts): text, at most MAX_INPUT_CHARS, a blank one refused with the same words. */
  message: textField().max(MAX_INPUT_CHARS),
});

/** POST /v1/jobs/{id}/stop: no body or `{}`; any field is 400 `… stop takes no fields; send no body or {}`. */
export const StopJobBody = emptyBody('stop');

/** GET /v1/jobs/{id}/events: `after` (src/http/resume-point.ts), `stream_token` (src/http/stream-token.ts). */
export const JobEventsQuery = z.object({ after: z.string().optional(), stream_token: z.string().optional() });
