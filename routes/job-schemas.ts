/** zod schemas of the background job endpoints' requests (openapi.yaml mirrors them). */
import { z } from 'zod';
import { JOB_STATUSES } from '../src/jobs/types.js';
import { SteeringMessageBody } from '../src/turns/request-schemas.js';
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

/**
 * The body of a turn's steering message (src/turns/request-schemas.ts SteeringMessageBody):
 * `{content}`, or `{message}` (this route's name before `content` was accepted here too),
 * parsed to `{content}`.
 */
export const JobMessageBody = SteeringMessageBody;

/** POST /v1/jobs/{id}/stop: no body or `{}`; any field is 400 `… stop takes no fields; send no body or {}`. */
export const StopJobBody = emptyBody('stop');

/** GET /v1/jobs/{id}/events: `after` (src/http/resume-point.ts), `stream_token` (src/http/stream-token.ts). */
export const JobEventsQuery = z.object({ after: z.string().optional(), stream_token: z.string().optional() });
