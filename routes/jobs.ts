/**
 * Background job endpoints (README.md "Background jobs"), over `services.registry.jobs`:
 * - GET  /v1/jobs — newest first; filters `agent_id`, `status` (a status, `live` or `stop`); cursor pagination
 *   (a cursor is refused with other filters than the request that returned it).
 * - GET  /v1/jobs/{id} — the job with its progress.
 * - POST /v1/jobs/{id}/messages — deliver a message (queued: at its start; running: steering;
 *   waiting_on_user: the answer resumes it; waiting_on_approval: steering, applied once the calls
 *   are decided); 202 with the job and how it was delivered; 409
 *   `job_finished` for a finished job. With an Idempotency-Key a repeat delivers nothing and
 *   answers the first delivery with the job as it is now (`Idempotent-Replayed: true`).
 * - POST /v1/jobs/{id}/stop — no body or `{}` (any field → 400); stop it (running tools are aborted);
 *   a finished job is returned unchanged.
 * - GET  /v1/jobs/{id}/events — resumable SSE (same id / Last-Event-ID rules as turn streams;
 *   src/http/sse-stream.ts), closing after `job.succeeded|failed|stopped`. An `Accept` without
 *   `text/event-stream` (say `application/json` alone) → 406 `not_acceptable`.
 * Jobs are created by the `jobs` tools of a turn (create_background_job), not over REST.
 */
import { bodyHash, clientIdempotencyKey, markReplayed } from '../src/http/idempotency.js';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { HttpError, notFound } from '../src/http/errors.js';
import { acceptsEventStream, eventStreamNotAcceptable } from '../src/http/negotiate.js';
import { resumePoint, streamEventLog } from '../src/http/sse-stream.js';
import { jobEventsLink, type StreamTokens } from '../src/http/stream-token.js';
import type { LoggedEvent } from '../src/store/event-log.js';
import { isJobTerminalEvent, type JobEvent } from '../src/jobs/events.js';
import type { JobService } from '../src/jobs/job-service.js';
import { LIVE_JOB_STATUSES, TERMINAL_JOB_STATUSES, type JobRecord } from '../src/jobs/types.js';
import { queryPaging } from '../src/list-cursor.js';
import { JobEventsQuery, JobIdParams, JobMessageBody, ListJobsQuery, StopJobBody } from './job-schemas.js';

/** Links of a job, relative to the service root (`events` carries a job-scoped stream token when AUTH_TOKENS is set). */
export function jobLinks(id: string, streamTokens?: StreamTokens) {
  const self = `/v1/jobs/${encodeURIComponent(id)}`;
  return { self, events: jobEventsLink(id, streamTokens), messages: `${self}/messages`, stop: `${self}/stop` };
}

/** The public shape of a job (the stored record without delivery bookkeeping) plus links. */
export function jobView(job: JobRecord, streamTokens?: StreamTokens) {
  const { notice: _n, source_call_id: _c, skills: _s, pending_messages, ...rest } = job;
  return { ...rest, pending_messages: pending_messages.length, links: jobLinks(job.id, streamTokens) };
}

/** SSE `data:` of a stored job event: the event plus seq, job_id and created_at. */
export function jobEventData(logged: LoggedEvent<JobEvent>): object {
  return { ...logged.event, seq: logged.seq, job_id: logged.streamId, created_at: logged.createdAt };
}

export const jobRoutes: RoutePlugin = async (app, { services }) => {
  const jobs = (): JobService => {
    const j = services.registry.jobs;
    if (!j) throw new HttpError(503, 'jobs_unavailable', 'the background job service is not configured on this server');
    return j;
  };
  const found = async (id: string): Promise<JobRecord> => {
    const job = await jobs().get(id);
    if (!job) throw notFound('job', id);
    return job;
  };

  app.get('/v1/jobs', { config: { query: ListJobsQuery } }, async (request) => {
    const q = ListJobsQuery.parse(request.query);
    const statuses = q.status === 'live' ? LIVE_JOB_STATUSES : q.status === 'stop' ? TERMINAL_JOB_STATUSES : q.status ? [q.status] : undefined;
    const paging = queryPaging('jobs', q);
    const page = await jobs().list({ agent_id: q.agent_id, statuses, limit: q.limit, cursor: paging.after });
    return { data: page.jobs.map((j) => jobView(j, services.streamTokens)), next_cursor: paging.next(page.next_cursor) };
  });

  app.get('/v1/jobs/:id', async (request) => {
    const { id } = JobIdParams.parse(request.params);
    const job = await found(id);
    const progress = await jobs().progress(job);
    return { ...jobView(job, services.streamTokens), progress };
  });

  app.post('/v1/jobs/:id/messages', async (request, reply) => {
    const { id } = JobIdParams.parse(request.params);
    const { content: message } = JobMessageBody.parse(request.body ?? undefined);
    const key = clientIdempotencyKey(request);
    await found(id);
    // Hashed under the name `message` whichever name carried the text: keys stored before `content` was accepted still match.
    const { value: sent, replayed } = await jobs().sendOnce(id, message, key, bodyHash({ job_id: id, message }));
    if (!sent) throw notFound('job', id);
    if (replayed) markReplayed(reply);
    return reply.code(202).send({ delivery: sent.delivery, job: jobView(sent.job, services.streamTokens) });
  });

  app.post('/v1/jobs/:id/stop', async (request) => {
    const { id } = JobIdParams.parse(request.params);
    StopJobBody.parse(request.body);
    await found(id);
    return jobView((await jobs().stop(id))!, services.streamTokens);
  });

  app.get('/v1/jobs/:id/events', { sse: 'manual', config: { query: JobEventsQuery } }, async (request, reply) => {
    const { id } = JobIdParams.parse(request.params);
    JobEventsQuery.parse(request.query);
    await found(id);
    if (!acceptsEventStream(request.headers.accept)) throw eventStreamNotAcceptable(`/v1/jobs/${encodeURIComponent(id)}`, 'job', request.headers.accept);
    const log = jobs().events;
    const after = resumePoint(request, await log.lastSeq(id));
    await streamEventLog(reply, {
      log,
      streamId: id,
      after,
      toData: jobEventData,
      isTerminal: isJobTerminalEvent,
      maxBuffered: services.config.SSE_MAX_BUFFERED_EVENTS,
      writeTimeoutMs: services.config.SSE_WRITE_TIMEOUT_MS,
      logger: reply.log,
      logFields: { job_id: id },
    });
  });
};
