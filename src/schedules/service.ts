/**
 * The schedule service: validates and persists schedules (src/schedules/store.ts) for the REST
 * routes and the `schedule` tools. Firing is the scheduler's job (./scheduler.ts).
 *
 * Rules (README "Schedules"):
 * - `when`: see ./when.ts; a one-shot's slot is fixed at create/update time.
 * - At most SCHEDULE_MAX_PER_AGENT schedules per agent that are `active` or `paused`
 *   (`completed` one-shots do not count).
 * - Pausing keeps the definition; resuming a cron schedule continues at its next slot after the
 *   resume time (slots passed while paused are not caught up); resuming a one-shot whose time
 *   passed while paused fires it at the next scheduler tick.
 * - A `completed` one-shot (it already ran) cannot be paused or resumed: `schedule_finished` (409);
 *   a new `when` makes it `active` again (and may be combined with `paused`).
 * - Every read-modify-write is one atomic store call (`create`, `modify`, `remove`: a transaction in
 *   either engine), so an edit never races the scheduler's claim of a slot, and the per-agent limit
 *   holds across instances.
 */
import { idempotencyKeyReused } from '../errors.js';
import { uuidv7 } from 'uuidv7';
import { familySet, requestHash, sameRequest } from '../turns/turn-input.js';
import type { Clock } from './clock.js';
import { FOREIGN_CURSOR_MESSAGE, foreignCursorIssue } from '../list-cursor.js';
import { ScheduleError, scheduleNotFound } from './errors.js';
import { toSchedule, toScheduleRun, type ScheduleStore, type StoredSchedule } from './store.js';
import type {
  CreateScheduleInput,
  CreateScheduleOptions,
  ListSchedulesQuery,
  Page,
  Schedule,
  ScheduleRequest,
  ScheduleRun,
  ScheduleService,
  UpdateScheduleChanges,
} from './types.js';
import { isRecurring, nextSlotAfter, validateWhen } from './when.js';

export interface ScheduleServiceDeps {
  store: ScheduleStore;
  clock: Clock;
  config: { SCHEDULE_MIN_INTERVAL_S: number; SCHEDULE_MAX_PER_AGENT: number };
  /** Current status of a turn (to show on runs); absent → runs show `turn_status: null`. */
  turnStatus?: (turnId: string) => string | undefined | Promise<string | undefined>;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

/**
 * The schedule id a list cursor stands for (undefined without a cursor).
 * @throws ScheduleError `invalid_request` for a cursor this service never returned, with the
 *   message and details every list gives one (src/list-cursor.ts): `[{path: "cursor", code:
 *   "invalid_format", message}]`.
 */
function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[0-9a-f-]{36}$/.test(id)) {
    throw new ScheduleError('invalid_request', FOREIGN_CURSOR_MESSAGE, [foreignCursorIssue()]);
  }
  return id;
}

function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ScheduleError('invalid_request', `limit must be an integer from 1 to ${MAX_LIMIT}`, { limit });
  }
  return limit;
}

function requestOf(input: CreateScheduleInput): ScheduleRequest {
  return {
    input: input.input,
    instructions: input.instructions ?? null,
    tools: [...input.tools],
    model: input.model ?? null,
    max_steps: input.max_steps ?? null,
    metadata: input.metadata ?? null,
    brain: input.brain ?? false,
    webhook: input.webhook ?? null,
    approvals: input.approvals ?? null,
  };
}

/** Public shape; a paused schedule shows no next run. */
function publicSchedule(s: StoredSchedule): Schedule {
  const out = toSchedule(s);
  if (s.status !== 'active') out.next_run_at = null;
  return out;
}

export function createScheduleService(deps: ScheduleServiceDeps): ScheduleService {
  const { store, clock, config } = deps;
  const rules = () => ({ now: clock.now(), minIntervalS: config.SCHEDULE_MIN_INTERVAL_S });

  const notFound = (id: string) => scheduleNotFound(id);

  async function mustGet(id: string): Promise<StoredSchedule> {
    const s = await store.get(id);
    if (!s) throw notFound(id);
    return s;
  }

  function checkLimit(agentId: string, live: number): void {
    if (live >= config.SCHEDULE_MAX_PER_AGENT) {
      throw new ScheduleError(
        'schedule_limit_reached',
        `agent ${agentId} already has ${live} active or paused schedules (limit SCHEDULE_MAX_PER_AGENT=${config.SCHEDULE_MAX_PER_AGENT}); delete one first`,
        { agent_id: agentId, limit: config.SCHEDULE_MAX_PER_AGENT },
      );
    }
  }

  return {
    async create(input, options: CreateScheduleOptions = {}) {
      const request = requestOf(input);
      // The families are a set (assembled in one fixed order whatever the order given): a retry
      // listing them in another order replays. The hash of the body exactly as sent stays among
      // the stored ones, so keys stored before that rule still replay the very same body.
      const scoped = { agent_id: input.agent_id, name: input.name, when: input.when, paused: input.paused ?? false };
      const hashes = [...new Set([requestHash({ ...scoped, ...request, tools: familySet(request.tools) }), requestHash({ ...scoped, ...request })])];
      const replay = (existing: StoredSchedule) => {
        if (!sameRequest(existing.request_hash, hashes)) {
          throw idempotencyKeyReused('schedule', existing.id);
        }
        return { schedule: publicSchedule(existing), created: false };
      };
      if (options.idempotencyKey !== undefined) {
        const existing = await store.getByIdempotencyKey(options.idempotencyKey);
        if (existing) return replay(existing);
      }
      const valid = validateWhen(input.when, rules());
      const now = clock.now();
      const s: StoredSchedule = {
        id: uuidv7(),
        agent_id: input.agent_id,
        name: input.name.trim(),
        status: input.paused ? 'paused' : 'active',
        when: valid.when,
        request,
        next_run_at: valid.firstRunAt,
        last_run_at: null,
        run_count: 0,
        created_at: now,
        updated_at: now,
        created_by: options.created_by ?? { type: 'api' },
        idempotency_key: options.idempotencyKey ?? null,
        request_hash: options.idempotencyKey !== undefined ? hashes.join(' ') : null,
      };
      const outcome = await store.create(s, config.SCHEDULE_MAX_PER_AGENT);
      if (outcome.kind === 'exists') return replay(outcome.existing);
      if (outcome.kind === 'limit') checkLimit(input.agent_id, outcome.live);
      return { schedule: publicSchedule(s), created: true };
    },

    async get(id) {
      const s = await store.get(id);
      return s ? publicSchedule(s) : undefined;
    },

    async list(query: ListSchedulesQuery = {}): Promise<Page<Schedule>> {
      const limit = pageLimit(query.limit);
      const rows = await store.list({ agent_id: query.agent_id, status: query.status, before: decodeCursor(query.cursor), limit: limit + 1 });
      const more = rows.length > limit;
      const data = rows.slice(0, limit);
      return { data: data.map(publicSchedule), next_cursor: more ? encodeCursor(data[data.length - 1].id) : null };
    },

    async update(id, changes: UpdateScheduleChanges) {
      const valid = changes.when !== undefined ? validateWhen(changes.when, rules()) : undefined;
      const stored = await store.modify(id, (s, liveCount) => {
        const now = clock.now();
        if (changes.name !== undefined) s.name = changes.name.trim();
        const r = s.request;
        if (changes.input !== undefined) r.input = changes.input;
        if (changes.instructions !== undefined) r.instructions = changes.instructions;
        if (changes.tools !== undefined) r.tools = [...changes.tools];
        if (changes.model !== undefined) r.model = changes.model;
        if (changes.max_steps !== undefined) r.max_steps = changes.max_steps;
        if (changes.metadata !== undefined) r.metadata = changes.metadata;
        if (changes.brain !== undefined) r.brain = changes.brain;
        if (changes.webhook !== undefined) r.webhook = changes.webhook;
        if (changes.approvals !== undefined) r.approvals = changes.approvals;
        if (valid) {
          if (s.status === 'completed') {
            checkLimit(s.agent_id, liveCount);
            s.status = 'active';
          }
          s.when = valid.when;
          s.next_run_at = valid.firstRunAt;
        }
        if (changes.paused !== undefined && s.status === 'completed') {
          throw new ScheduleError('schedule_finished', `schedule ${id} has finished (a one-shot that already ran), so it cannot be paused or resumed; give it a new "when" to run it again, or delete it`, { id, status: s.status });
        }
        if (changes.paused === true && s.status === 'active') s.status = 'paused';
        if (changes.paused === false) {
          if (s.status === 'paused') {
            s.status = 'active';
            if (!valid && isRecurring(s.when)) s.next_run_at = nextSlotAfter(s.when, now);
          }
        }
        s.updated_at = now;
        return s;
      });
      if (!stored) throw notFound(id);
      return publicSchedule(stored);
    },

    async delete(id) {
      const removed = await store.remove(id);
      if (!removed) throw notFound(id);
      return publicSchedule(removed);
    },

    async listRuns(id, query = {}): Promise<Page<ScheduleRun>> {
      await mustGet(id);
      const limit = pageLimit(query.limit);
      const rows = await store.listRuns(id, { before: decodeCursor(query.cursor), limit: limit + 1 });
      const more = rows.length > limit;
      const data = rows.slice(0, limit);
      const statusOf = async (turnId: string | null) => (turnId && deps.turnStatus ? ((await deps.turnStatus(turnId)) ?? null) : null);
      return {
        data: await Promise.all(data.map(async (r) => toScheduleRun(r, await statusOf(r.turn_id)))),
        next_cursor: more ? encodeCursor(data[data.length - 1].id) : null,
      };
    },
  };
}
