/**
 * ScheduleError: every refusal of the schedule service, with a stable `code`, the HTTP status the
 * REST layer answers with, and optional `details`. Tools show `message` to the model as `Error: …`.
 */
import { DomainError } from '../errors.js';
import { notFoundHint } from '../http/errors.js';

/** Stable error codes (documented in openapi.yaml under ScheduleErrorCode). */
export type ScheduleErrorCode =
  | 'invalid_when' // none, or more than one, of at / after / cron(+timezone)
  | 'invalid_at' // `at` not an ISO 8601 time with offset
  | 'at_in_past' // `at` (or a resumed one-shot's new at) not after now
  | 'invalid_after' // `after.value` not a positive integer within bounds
  | 'invalid_cron' // croner refused the expression, or it never fires
  | 'unknown_timezone' // not an IANA zone name known to this runtime, or a UTC offset (+02:00)
  | 'timezone_required' // `cron` without `timezone` (there is no default zone)
  | 'cron_too_frequent' // two slots closer than SCHEDULE_MIN_INTERVAL_S
  | 'schedule_limit_reached' // SCHEDULE_MAX_PER_AGENT active + paused schedules
  | 'schedule_finished' // pausing or resuming a completed one-shot (it has nothing left to run)
  | 'schedule_not_found'
  | 'invalid_request'; // other field problems (name, tools, …)

const STATUS: Record<ScheduleErrorCode, number> = {
  invalid_when: 400,
  invalid_at: 400,
  at_in_past: 400,
  invalid_after: 400,
  invalid_cron: 400,
  unknown_timezone: 400,
  timezone_required: 400,
  cron_too_frequent: 400,
  invalid_request: 400,
  schedule_limit_reached: 409,
  schedule_finished: 409,
  schedule_not_found: 404,
};

/** A schedule refusal; its HTTP status follows from the code. */
export class ScheduleError extends DomainError {
  declare readonly code: ScheduleErrorCode;
  /** An object, or for a field problem the `[{path, code, message}]` list of `invalid_request`. */
  declare readonly details?: Record<string, unknown> | readonly { path: string; code: string; message: string }[];
  constructor(code: ScheduleErrorCode, message: string, details?: ScheduleError['details']) {
    super(code, message, STATUS[code], details);
  }
}

export function isScheduleError(err: unknown): err is ScheduleError {
  return err instanceof ScheduleError;
}

/**
 * 404 `schedule_not_found` for an unknown schedule id: `no schedule with id "x": check the id;
 * GET /v1/schedules lists the schedules there are`, details `{resource: "schedule", id, list}`.
 */
export function scheduleNotFound(id: string): ScheduleError {
  const { shown, hint, details } = notFoundHint('schedule', id, '/v1/schedules', 'schedules');
  return new ScheduleError('schedule_not_found', `no schedule with id ${shown}: ${hint}`, details);
}
