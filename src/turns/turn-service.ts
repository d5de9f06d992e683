/**
 * The turn service: admits turns (validation, idempotency, persistence — a stored turn is queued),
 * reads them, cancels them (a stored request any instance's runner sees), and owns this
 * instance's {@link TurnRunner}, which claims queued turns and turns whose owner died and runs or
 * resumes them from their checkpoints (src/turns/turn-run.ts).
 *
 * What survives a restart is described in README.md ("What survives a restart").
 */
import { uuidv7 } from 'uuidv7';
import type { ModelApi, ToolFamily } from '../config.js';
import { buildProviderTools, providerToolNames } from '../runtime/provider-tools.js';
import { buildTurnContext } from './turn-context.js';
import { turnSkills } from '../skills/turn-skills.js';
import { assembleTools as defaultAssemble } from '../assembly/assemble.js';
import type { ServiceRegistry } from '../assembly/services.js';
import type { Config } from '../config.js';
import { HttpError, notFound } from '../http/errors.js';
import { escapeUnsafeChars, quoteForDisplay } from '../unsafe-chars.js';
import { modelFor, type ModelClients } from '../model/model-clients.js';
import { toChatTools } from '../model/chat-tools.js';
import type { ModelPort } from '../model/port.js';
import { requireModel } from '../model/require-model.js';
import { DomainError, idempotencyKeyReused } from '../errors.js';
import { issueLine, issuePath } from '../zod-messages.js';
import { isTerminalEvent, type TurnEvent } from '../runtime/events.js';
import type { TurnCheckpointStore } from '../store/checkpoint-store.js';
import type { EventLog, EventNotifier } from '../store/event-log.js';
import type { ApprovalStore } from '../store/approval-store.js';
import type { TurnQueue } from '../store/turn-queue.js';
import type { ListTurnsQuery, TurnStore } from '../store/turn-store.js';
import type { TaskBindingResolver } from './task-binding.js';
import { idempotencyHashes, sameRequest } from './turn-input.js';
import { isFinished } from './turn-outcome.js';
import { turnOwner, type TurnOwner } from './turn-owner.js';
import { TurnRunner } from './turn-runner.js';
import type { RunTurnFn } from './turn-run.js';
import type { CreateTurnInput, CreateTurnOptions, TurnRecord, TurnService } from './turn-service-types.js';
import { Waiters } from './waiters.js';
import { notApplied, steeringTooLong, type TurnInputs } from './inputs/turn-inputs.js';
import { newTurnTrace } from '../telemetry/trace-context.js';

export type { RunTurnFn };

function previousTurnActive(prev: TurnRecord): HttpError {
  return new HttpError(
    409,
    'previous_turn_active',
    `previous turn ${prev.id} has not finished (status ${prev.status}); wait for it, or send "multitask_strategy": "enqueue", "interrupt" or "steer"`,
    { previous_turn_id: prev.id, status: prev.status },
  );
}

/**
 * The request fields a `steer` double-text uses: `input` (the steering message), `previous_turn_id`
 * (the turn it goes into), `agent_id` (must be that turn's agent) and `multitask_strategy`; besides
 * them only the Idempotency-Key header counts. Any other field would be dropped, so it is refused
 * ({@link steerFieldsIgnored}) — unless its value means what leaving it out means
 * ({@link meansLeftOut}): then nothing is dropped.
 */
export const STEER_FIELDS: readonly string[] = ['input', 'previous_turn_id', 'agent_id', 'multitask_strategy'];

/**
 * True when `value` of the POST /v1/turns field `field` means what leaving the field out means, so
 * a client that always sends its defaults is not refused a `steer` for fields it did not choose:
 * `false` for `brain` and `cancel_on_disconnect`, `""` for `instructions` (no instructions), and
 * the server's own defaults for `model` (MODEL), `model_api` (MODEL_API), `max_steps` (MAX_STEPS)
 * and `tools` (DEFAULT_TOOLS, as a set: any order). `metadata`, `skills` (`[]` is "none", not the
 * agent's list), `webhook` and `approvals` have no such value. A `null` never reaches here: the
 * route reads it as left out.
 */
export function meansLeftOut(field: string, value: unknown, config: Pick<Config, 'MODEL' | 'MODEL_API' | 'MAX_STEPS' | 'DEFAULT_TOOLS'>): boolean {
  switch (field) {
    case 'brain':
    case 'cancel_on_disconnect':
      return value === false;
    case 'instructions':
      return value === '';
    case 'model':
      return config.MODEL !== undefined && value === config.MODEL;
    case 'model_api':
      return value === config.MODEL_API;
    case 'max_steps':
      return value === config.MAX_STEPS;
    case 'tools':
      return Array.isArray(value) && value.length === config.DEFAULT_TOOLS.length && config.DEFAULT_TOOLS.every((f) => value.includes(f));
    default:
      return false;
  }
}

/**
 * 400 `invalid_request` for a `steer` double-text on active turn `prev` that sends `fields`, which
 * steering does not use (not in {@link STEER_FIELDS}): the message names each, says steer only
 * adds `input` to that turn and which fields it takes, and what to do (leave them out, or
 * `enqueue` / `interrupt` for a new turn that uses them); details one `{path: <field>, code:
 * "not_used_by_steer", message}` per field.
 */
export function steerFieldsIgnored(prev: TurnRecord, fields: readonly string[]): DomainError {
  const what = 'is not used by multitask_strategy "steer", which only adds input to the active turn: leave it out, or send "enqueue" or "interrupt" for a new turn that uses it';
  return new DomainError(
    'invalid_request',
    `${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} not used by multitask_strategy "steer": previous turn ${prev.id} is still active (status ${prev.status}), so only input goes into it, as the user's steering message; steer takes only ${STEER_FIELDS.slice(0, -1).join(', ')} and ${STEER_FIELDS.at(-1)} (and the Idempotency-Key header; other fields only with the value leaving them out means, such as "brain": false). Leave ${fields.length === 1 ? 'it' : 'them'} out to steer, or send "multitask_strategy": "enqueue" or "interrupt" for a new turn that uses ${fields.length === 1 ? 'it' : 'them'}`,
    400,
    fields.map((path) => ({ path, code: 'not_used_by_steer', message: what })),
  );
}

/**
 * Serializes the creation of one agent's follow-ups (`enqueue` / `interrupt`) across every
 * instance on one database (Postgres: src/store/postgres/pg-follow-up-lock.ts). Within an
 * instance {@link DefaultTurnService.create} already runs them one at a time.
 */
export interface FollowUpLock {
  /** Run `fn` while no other instance runs one for `agentId`; resolves with its result. */
  run<T>(agentId: string, fn: () => Promise<T>): Promise<T>;
  /** Let go of what the lock holds (connections); called once, after the last `run`. */
  close(): Promise<void>;
}

export interface TurnServiceDeps {
  config: Config;
  store: TurnStore;
  queue: TurnQueue;
  checkpoints: TurnCheckpointStore;
  /** The turn event log (store, then notify: a PublishedEventLog). */
  events: EventLog<TurnEvent>;
  /**
   * The turn log's notifier (any instance's events; broadcasts on Postgres reach every instance):
   * a cancel is broadcast (`cancel <id>`) so the runner on another instance aborts at once instead
   * of at its next heartbeat, and waits for a turn to finish end at its terminal event instead of
   * at the next poll. Unset: heartbeat and poll only (≤ 1 s each).
   */
  notifier?: Pick<EventNotifier<TurnEvent>, 'subscribe' | 'broadcast' | 'onBroadcast'>;
  registry: ServiceRegistry;
  /** The model client of MODEL_API, or undefined when no endpoint is configured (→ 503 model_not_configured). */
  modelClient: ModelPort | undefined;
  /** Clients per wire protocol, for turns whose request names `model_api`. */
  modelClients?: ModelClients;
  runTurn: RunTurnFn;
  assembleTools?: typeof defaultAssemble;
  /** Rebuilds workflow task bindings (set by the workflow service; see src/turns/task-binding.ts). */
  bindings?: TaskBindingResolver;
  /** Steering messages (src/turns/inputs/): applied by the runner at round boundaries. */
  inputs?: TurnInputs;
  /** This instance's id in queue claims [a fresh UUIDv7]. */
  instanceId?: string;
  /** Stored tool approvals (src/turns/approvals/); unset: no call waits for approval. */
  approvals?: ApprovalStore;
  /** Serializes follow-up creation across instances (several instances on one Postgres); unset: this instance alone. */
  followUpLock?: FollowUpLock;
  /** After a run paused (`waiting`): queue it again if what it waits for arrived meanwhile. */
  onWaiting?: (id: string) => Promise<void>;
  /**
   * Throws when this service may no longer write its database — SQLite: another service took
   * DATA_DIR over (`DataDirLostError`, src/store/database.ts `ownershipCheck`). Called before each
   * model request of a run, so a run whose service lost DATA_DIR sends none: its round's writes
   * are committed after the request starts (write-behind) and would find it too late. Absent: not checked.
   */
  checkOwnership?: () => void;
  log?: { info: (o: object, m?: string) => void; warn: (o: object, m?: string) => void; error: (o: object, m?: string) => void };
}

const POLL_MS = 1000;

/** The broadcast topic asking the runner of turn `id` (any instance) to look for a stored cancel now. */
export function cancelTopic(id: string): string {
  return `cancel ${id}`;
}

/** A family `POST /v1/tools/preview` lists: a requested tool family, or `brain` / `skills` (asked for by their own fields). */
export type PreviewFamily = ToolFamily | 'brain' | 'skills';

export class DefaultTurnService implements TurnService {
  private readonly waiters = new Waiters();
  private readonly assemble: typeof defaultAssemble;
  private readonly runner: TurnRunner | undefined;
  private stopping = false;
  private started = false;
  /** Set by the workflow service once it exists (it is built after the turn service). */
  bindings: TaskBindingResolver | undefined;

  constructor(private readonly deps: TurnServiceDeps) {
    this.assemble = deps.assembleTools ?? defaultAssemble;
    this.bindings = deps.bindings;
    if (deps.modelClient) {
      this.runner = new TurnRunner({
        ...deps,
        model: deps.modelClient,
        modelFor: (api) => modelFor(deps.modelClients, deps.modelClient, api) ?? deps.modelClient!,
        assemble: this.assemble,
        get bindings() {
          return self.bindings;
        },
        owner: deps.instanceId ?? uuidv7(),
        onRunEnded: (id) => {
          this.waiters.wake(id);
          void this.releaseFollowUps(id).catch((err) => this.deps.log?.error({ err, turn_id: id }, 'starting the follow-ups of a turn failed'));
        },
        waitFinished: (id, signal) => this.waitFinished(id, signal),
      });
    }
    const self = this;
  }

  /** True when a model endpoint is configured. */
  get modelConfigured(): boolean {
    return this.deps.modelClient !== undefined;
  }

  /**
   * @throws HttpError 503 `model_not_configured`, 400 `model_required` (no `model` and no MODEL),
   *   409 `idempotency_key_reused` (same key, different body), 404 `previous_turn_not_found`,
   *   409 `previous_turn_owned` (the previous turn is a job's or workflow's, active or finished,
   *   and this turn is of another kind),
   *   409 `previous_turn_active` (previous turn active and `multitask_strategy` reject), 409
   *   `agent_mismatch` (details `{previous_turn_id, agent_id}`: the agent owning it), 503 `shutting_down`; with `steer` on an active previous turn also
   *   400 `invalid_request` (fields steering does not use with a value other than leaving them out ({@link meansLeftOut}), in `input` or `options.callerFields`,
   *   see {@link steerFieldsIgnored}; a message of another role than user; input over the
   *   steering cap, details `[{path: "input", code, message}]`, see `steeringTooLong`) and
   *   `TurnInputs.send`'s errors. Double-texting: see {@link CreateTurnInput.multitask_strategy};
   *   `steer` returns the previous turn with `steered` set instead of a new turn.
   *
   * Follow-ups (`enqueue` / `interrupt`) of one agent are created one at a time in this instance,
   * and with {@link TurnServiceDeps.followUpLock} across instances too, so two sent at once chain
   * (the second goes behind the first) instead of both continuing the same turn; the lock adds 503
   * `follow_up_busy` (another instance held it too long) and its connection errors.
   */
  create(input: CreateTurnInput, options: CreateTurnOptions = {}): Promise<TurnRecord> {
    const strategy = input.multitask_strategy;
    if (input.previous_turn_id === undefined || (strategy !== 'enqueue' && strategy !== 'interrupt')) return this.createNow(input, options);
    const before = this.followUpLocks.get(input.agent_id) ?? Promise.resolve();
    const lock = this.deps.followUpLock;
    const created = before.then(() => (lock ? lock.run(input.agent_id, () => this.createNow(input, options)) : this.createNow(input, options)));
    const settled = created.then(() => undefined, () => undefined);
    this.followUpLocks.set(input.agent_id, settled);
    void settled.then(() => {
      if (this.followUpLocks.get(input.agent_id) === settled) this.followUpLocks.delete(input.agent_id);
    });
    return created;
  }

  /** Per agent: the follow-up creation the next one waits for ({@link create}). */
  private readonly followUpLocks = new Map<string, Promise<void>>();

  private async createNow(input: CreateTurnInput, options: CreateTurnOptions): Promise<TurnRecord> {
    const { config, store } = this.deps;
    if (this.stopping) throw new HttpError(503, 'shutting_down', 'the service is shutting down');
    const model = requireModel(this.deps.modelClient !== undefined, input.model, config.MODEL);
    if (input.model_api !== undefined && !modelFor(this.deps.modelClients, this.deps.modelClient, input.model_api)) {
      throw new HttpError(400, 'model_api_unavailable', `model_api "${input.model_api}" is not available on this service; leave it out to use MODEL_API (${config.MODEL_API})`);
    }

    // An Idempotency-Key is bound to the request both with the service's defaults filled in and as
    // sent (README.md "Idempotency", src/turns/turn-input.ts idempotencyHashes).
    const key = options.idempotencyKey;
    const hashes = key === undefined ? [] : idempotencyHashes(input, model, config, { kind: options.kind ?? 'main', origin: options.origin ?? { type: 'api' } });
    if (key !== undefined) {
      const replay = (await this.replayOf(key, hashes, options)) ?? (await this.steerReplayOf(key, hashes, input, options));
      if (replay) return replay;
    }
    let interrupt: string[] = [];
    if (input.previous_turn_id !== undefined) {
      const prev = await store.get(input.previous_turn_id);
      if (!prev) {
        throw new HttpError(404, 'previous_turn_not_found', `previous turn ${quoteForDisplay(input.previous_turn_id)} not found: send previous_turn_id of a turn this service returned, or leave it out to start a new conversation`, {
          previous_turn_id: escapeUnsafeChars(input.previous_turn_id),
        });
      }
      if (prev.agent_id !== input.agent_id) throw agentMismatch(prev, input.agent_id);
      const owner = turnOwner(prev);
      if (owner && prev.kind !== (options.kind ?? 'main')) throw previousTurnOwned(prev, owner);
      const strategy = input.multitask_strategy ?? 'reject';
      if (!isFinished(prev)) {
        if (strategy === 'reject') throw previousTurnActive(prev);
        if (strategy === 'steer') return this.steer(prev, input, key, hashes, options.callerFields ?? []);
      }
      if (strategy === 'steer') await options.newTurnChecks?.();
      if (strategy === 'enqueue' || strategy === 'interrupt') {
        // The new turn goes behind the follow-ups still active on `prev` (double-texting twice
        // chains: the second continues the first, not `prev` beside it) — also when `prev` itself
        // has just ended, e.g. cancelled by an earlier interrupt — and is deferred by its runner
        // until that turn has finished; interrupt cancels every active turn of that chain (a turn
        // cancelled while queued passes its input on: storedTranscript).
        const chain = await this.unfinishedChain(prev);
        const active = chain.filter((t) => !isFinished(t));
        if (strategy === 'interrupt') interrupt = active.map((t) => t.id);
        if (active.length > 0) input = { ...input, previous_turn_id: chain.at(-1)!.id };
      }
    }

    const id = uuidv7();
    const inserted = store.insert({
      id,
      agent_id: input.agent_id,
      kind: options.kind ?? 'main',
      origin: options.origin ?? { type: 'api' },
      model,
      created_at: new Date().toISOString(),
      metadata: input.metadata ?? null,
      request: { ...input, model },
      idempotency_key: options.idempotencyKey ?? null,
      request_hash: key === undefined ? null : hashes.join(' '),
      binding: options.workflowTask ?? null,
      trace: newTurnTrace(options.traceparent),
    });
    try {
      await inserted;
    } catch (err) {
      // The same key inserted meanwhile by a racing request (on this or another instance): the
      // key is unique in the store, so that turn is the one; replay it (or 409 for another body).
      const replay = key === undefined ? undefined : await this.replayOf(key, hashes, options);
      if (replay) return replay;
      throw err;
    }
    const rec = (await store.get(id))!;
    // Newest first: a queued follow-up is cancelled before the turn it waits on ends.
    if (interrupt.length > 0) {
      void (async () => {
        for (const prevId of [...interrupt].reverse()) await this.cancel(prevId).catch((err) => this.deps.log?.error({ err, turn_id: prevId }, 'interrupting the previous turn failed'));
      })();
    }
    if (this.started) this.runner?.wake();
    return rec;
  }

  /**
   * Turn `id` has ended: its follow-ups that wait for it (`enqueue` / `interrupt`, deferred by
   * their runner) become claimable now instead of after their deferral, and the runner is woken.
   */
  private async releaseFollowUps(id: string): Promise<void> {
    const rec = await this.deps.store.get(id);
    if (!rec || !isFinished(rec)) return;
    let released = false;
    for (const next of await this.deps.store.continuations(id, rec.agent_id)) {
      if ((await this.deps.store.get(next))?.status === 'queued' && (await this.deps.queue.enqueue(next))) released = true;
    }
    if (released) this.wake();
  }

  /**
   * The path from `prev` to the newest unfinished turn that continues it, directly or through
   * other turns (`previous_turn_id`; e.g. through a follow-up an interrupt already cancelled),
   * oldest first; just `[prev]` when none is unfinished. Looks at most 200 turns. A double-text
   * with `enqueue` or `interrupt` continues the path's last turn.
   */
  private async unfinishedChain(prev: TurnRecord): Promise<TurnRecord[]> {
    const parent = new Map<string, TurnRecord>();
    const queue: TurnRecord[] = [prev];
    let newest: TurnRecord | undefined;
    for (let seen = 0; queue.length > 0 && seen < 200; seen++) {
      const t = queue.shift()!;
      for (const id of await this.deps.store.continuations(t.id, prev.agent_id)) {
        const next = await this.deps.store.get(id);
        if (!next || parent.has(next.id)) continue;
        parent.set(next.id, t);
        queue.push(next);
        if (!isFinished(next) && (!newest || next.id > newest.id)) newest = next; // uuidv7: newer sorts later
      }
    }
    const path: TurnRecord[] = [];
    for (let t: TurnRecord | undefined = newest; t && t.id !== prev.id; t = parent.get(t.id)) path.unshift(t);
    return [prev, ...path];
  }

  /**
   * Double-texting `steer`: the new input goes into `prev` as a steering message — once per
   * Idempotency-Key (`TurnInputs.sendOnce`; a racing repeat waits for the first and replays it).
   * A request with fields steering does not use (`input`'s beyond {@link STEER_FIELDS} whose value
   * is not {@link meansLeftOut}, and `callerFields`) is refused before anything is stored
   * ({@link steerFieldsIgnored}).
   */
  private async steer(prev: TurnRecord, input: CreateTurnInput, key: string | undefined, hashes: readonly string[], callerFields: readonly string[]): Promise<TurnRecord> {
    const { inputs } = this.deps;
    if (!inputs) throw previousTurnActive(prev);
    const ignored = [
      ...Object.keys(input).filter((k) => {
        const value = input[k as keyof CreateTurnInput];
        return value !== undefined && !STEER_FIELDS.includes(k) && !meansLeftOut(k, value, this.deps.config);
      }),
      ...callerFields,
    ];
    if (ignored.length > 0) throw steerFieldsIgnored(prev, ignored);
    // A steering message is the user's: other roles would reach the model as user text.
    if (typeof input.input !== 'string') {
      const bad = input.input.flatMap((m, i) => (m.role === 'user' ? [] : [{ path: ['input', i, 'role'], message: `must be "user" for a steering message, got ${JSON.stringify(m.role)}` }]));
      if (bad.length > 0) {
        const lines = bad.map(issueLine).join('; ');
        throw new DomainError('invalid_request', `${lines} (multitask_strategy "steer" adds the input to the running turn as the user's message)`, 400, bad.map((b) => ({ path: issuePath(b.path), code: 'invalid_value', message: b.message })));
      }
    }
    const content = typeof input.input === 'string' ? input.input : input.input.map((m) => m.content).join('\n\n');
    const tooLong = steeringTooLong('input', content);
    if (tooLong) throw tooLong;
    const { value: queued } = await inputs.sendOnce(prev.id, content, 'double_text', key, hashes.join(' '));
    return { ...((await this.deps.store.get(prev.id)) ?? prev), steered: { message_id: queued.message_id } };
  }

  /**
   * A repeated `steer` double-text: the previous turn in its current state with the first
   * request's `steered` (after `onReplay`), whatever that turn's status now; undefined when `key`
   * stored no steering message.
   * @throws HttpError 409 `idempotency_key_reused` when the key's message came with another body.
   */
  private async steerReplayOf(key: string, hashes: readonly string[], input: CreateTurnInput, options: CreateTurnOptions): Promise<TurnRecord | undefined> {
    const keyed = await this.deps.inputs?.keyed(key);
    if (!keyed?.message_id) return undefined; // unknown, or its first request is still storing it: the steer path waits for it
    if (!sameRequest(keyed.request_hash, hashes) || input.previous_turn_id === undefined) throw idempotencyKeyReused('message', keyed.message_id);
    const prev = await this.deps.store.get(input.previous_turn_id);
    if (!prev) return undefined;
    options.onReplay?.();
    return { ...prev, steered: { message_id: keyed.message_id } };
  }

  /**
   * The turn stored under `key` (after `onReplay`), in its current state; undefined when none.
   * @param hashes this request's {@link idempotencyHashes}.
   * @throws HttpError 409 `idempotency_key_reused` when the stored request is another one ({@link sameRequest}).
   */
  private async replayOf(key: string, hashes: readonly string[], options: CreateTurnOptions): Promise<TurnRecord | undefined> {
    const existing = await this.deps.store.findByIdempotencyKey(key);
    if (!existing) return undefined;
    if (!sameRequest(existing.request_hash, hashes)) throw idempotencyKeyReused('turn', existing.id);
    options.onReplay?.();
    return (await this.deps.store.get(existing.id))!;
  }

  get(id: string): Promise<TurnRecord | undefined> {
    return this.deps.store.get(id);
  }

  list(query: ListTurnsQuery): Promise<TurnRecord[]> {
    return this.deps.store.list(query);
  }

  /**
   * Cancel: store the request (any instance's runner sees it within a second), end a queued turn
   * at once, abort a turn running here at once; then wait (≤ 10 s) for it to end.
   */
  async cancel(id: string): Promise<TurnRecord | undefined> {
    const { store } = this.deps;
    const rec = await store.get(id);
    if (!rec) return undefined;
    if (isFinished(rec)) return rec;
    await store.requestCancel(id, new Date().toISOString());
    const now = new Date().toISOString();
    const queued = await store.finishQueued(id, {
      status: 'cancelled', completed_at: now, output_text: rec.output_text, stop_reason: rec.stop_reason, steps: rec.steps, usage: rec.usage, error: null,
    });
    if (queued) {
      const cancelled: TurnEvent = { type: 'turn.cancelled', calls: [] };
      for (const m of (await this.deps.inputs?.closeQueue(id, 0)) ?? []) await this.deps.events.append(id, notApplied(m.id, cancelled));
      await this.deps.events.append(id, cancelled);
      this.waiters.wake(id);
      await this.releaseFollowUps(id).catch((err) => this.deps.log?.error({ err, turn_id: id }, 'starting the follow-ups of a turn failed'));
      return store.get(id);
    }
    // A waiting turn (paused at a checkpoint) is queued again: its runner ends it, answering every open call.
    if (await this.deps.queue.enqueue(id)) this.wake();
    const local = this.runner?.cancelLocal(id);
    if (!local) this.deps.notifier?.broadcast?.(cancelTopic(id)); // running on another instance, or about to run
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(new Error('cancel wait timed out')), 10_000).unref();
    try {
      await (local ?? this.waitFinished(id, ac.signal));
    } catch {
      // timed out: the turn is returned as it is now
    } finally {
      clearTimeout(timer);
    }
    return store.get(id);
  }

  async waitForTerminal(id: string, signal?: AbortSignal): Promise<TurnRecord> {
    for (;;) {
      const rec = await this.deps.store.get(id);
      if (!rec) throw notFound('turn', id);
      if (isFinished(rec) && !this.runner?.isRunning(id)) return rec;
      signal?.throwIfAborted();
      await this.nextWake(id, signal);
    }
  }

  /** Resolves when turn `id` is finished (or unknown). */
  private async waitFinished(id: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const rec = await this.deps.store.get(id);
      if (!rec || (isFinished(rec) && !this.runner?.isRunning(id))) return;
      signal?.throwIfAborted();
      await this.nextWake(id, signal);
    }
  }

  /**
   * The next in-process wake-up of `id`, its terminal event as notified (a turn run by another
   * instance), or POLL_MS, whichever comes first.
   */
  private nextWake(id: string, signal?: AbortSignal): Promise<void> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => ac.abort(new Error('poll')), POLL_MS);
    const unsubscribe = this.deps.notifier?.subscribe(id, (logged) => {
      if (isTerminalEvent(logged.event)) ac.abort(new Error('ended'));
    });
    return this.waiters.wait(id, ac.signal).catch((err) => {
      if (signal?.aborted) throw err;
    }).finally(() => {
      clearTimeout(timer);
      unsubscribe?.();
      signal?.removeEventListener('abort', onAbort);
      if (!ac.signal.aborted) ac.abort();
    });
  }

  /**
   * Start of this instance: leases left by a dead process are marked lost (those turns resume);
   * returns how many. Call {@link startRunning} once the services turns depend on are started.
   */
  async recover(): Promise<{ resumable: number; queued: number }> {
    const resumable = await this.deps.queue.recoverOrphans(Date.now());
    const queued = (await this.deps.store.idsWithStatus(['queued'])).length;
    return { resumable, queued };
  }

  /** Start claiming and running turns (queued ones in order, then new ones). */
  startRunning(): void {
    this.started = true;
    this.runner?.start();
  }

  /** Stop taking turns; running ones are detached (they resume on the next start); bounded wait. */
  async stop(timeoutMs = 5000): Promise<void> {
    this.stopping = true;
    await this.runner?.stop(timeoutMs);
  }

  /** Let go of the follow-up lock's connections (after {@link stop}, before the database closes). */
  async close(): Promise<void> {
    const lock = this.deps.followUpLock;
    this.deps.followUpLock = undefined;
    await lock?.close();
  }

  /**
   * The exact provider `tools` array a main turn with this configuration would send, from the
   * same assembler and the runtime's buildProviderTools, in the form of the turn's wire protocol
   * (`model_api`, else MODEL_API): as is for the Responses API, through the Chat Completions
   * adapter's {@link toChatTools} for `chat` (`{type: "function", function: {…}}`, namespaced
   * tools flattened to `<namespace>__<name>`, no hosted tool search). Nothing runs; the context's signal is
   * aborted afterwards. `families` are the families the turn is assembled with: the requested
   * tool families (or DEFAULT_TOOLS) in request order, then `brain` when `brain: true`, then
   * `skills` when the turn has skills (its `skills` list, else the agent's enabled list; named
   * even when every one is withheld, which `unavailable` then says, as for a requested family
   * whose tools cannot be offered).
   */
  async previewTools(req: { agent_id: string; tools?: ToolFamily[]; model?: string; model_api?: ModelApi; brain?: boolean; skills?: string[] }) {
    const controller = new AbortController();
    const model = req.model ?? this.deps.config.MODEL ?? '';
    const modelApi = req.model_api ?? this.deps.config.MODEL_API;
    try {
      const ctx = buildTurnContext(this.deps.config, this.deps.registry, {
        turnId: 'preview',
        agentId: req.agent_id,
        kind: 'main',
        origin: { type: 'api' },
        model,
        tools: req.tools,
        brain: req.brain,
        skills: req.skills,
        signal: controller.signal,
      });
      const { tools, unavailable } = await this.assemble(ctx);
      const definitions = buildProviderTools(tools, { toolSearchMode: this.deps.config.TOOL_SEARCH_MODE });
      const resolved = await turnSkills(ctx);
      const families: PreviewFamily[] = [
        ...ctx.families,
        ...(ctx.brain ? (['brain'] as const) : []),
        ...(resolved.skills.length > 0 || resolved.problems.length > 0 ? (['skills'] as const) : []),
      ];
      const sent = modelApi === 'chat' ? toChatTools(definitions).tools : definitions;
      return { model: model || null, model_api: modelApi, families, tools: providerToolNames(definitions), unavailable, definitions: sent };
    } finally {
      controller.abort(new Error('preview finished'));
    }
  }

  /** Turns running in this instance now. */
  get runningCount(): number {
    return this.runner?.size ?? 0;
  }

  /**
   * Turns running in this instance now, and turns queued / waiting in the store now (so also
   * those other instances on the same store created, claimed or paused, and those a previous run
   * left). For /readyz and /metrics.
   */
  async stats(): Promise<{ running: number; queued: number; waiting: number }> {
    const [queued, waiting] = await Promise.all([this.deps.store.idsWithStatus(['queued']), this.deps.store.idsWithStatus(['waiting'])]);
    return { running: this.runningCount, queued: queued.length, waiting: waiting.length };
  }

  /** Claim queued turns now (e.g. one put back in the queue by a decision). */
  wake(): void {
    if (this.started) this.runner?.wake();
  }
}

/**
 * 409 `agent_mismatch`: `prev` belongs to another agent than the request's `agentId` (a
 * conversation stays with one agent: its transcript, home and memory are that agent's). The message
 * names the owning agent and what to send; details `{previous_turn_id, agent_id: <owning agent>}`.
 */
function agentMismatch(prev: TurnRecord, agentId: string): HttpError {
  return new HttpError(
    409,
    'agent_mismatch',
    `previous turn ${prev.id} belongs to agent ${prev.agent_id}, not ${agentId}; send "agent_id": "${prev.agent_id}" to continue it, or leave out previous_turn_id to start a new conversation for ${agentId}`,
    { previous_turn_id: prev.id, agent_id: prev.agent_id },
  );
}

/**
 * 409 `previous_turn_owned`: the previous turn belongs to a workflow task or a background job,
 * which alone may continue it — active or finished. A turn of another kind double-texting an active
 * one would take it over (e.g. cancel a job's work); continuing a finished one would fork the
 * owner's conversation behind its back (a job's next start continues its own last turn). The
 * message names the owner and the routes to use instead; details `{previous_turn_id, kind, status,
 * job_id | workflow_id}`.
 */
function previousTurnOwned(prev: TurnRecord, owner: TurnOwner): HttpError {
  const details = { previous_turn_id: prev.id, kind: prev.kind, status: prev.status, ...owner.ids };
  const fresh = 'or leave out previous_turn_id to start a new conversation';
  if (isFinished(prev)) {
    const instead = owner.messageRoute
      ? `its work goes on through the job: read it with ${owner.readRoute} and, while the job is live, message it with ${owner.messageRoute}; ${fresh}`
      : `its result is the workflow's: read it with ${owner.readRoute}; ${fresh}`;
    return new HttpError(409, 'previous_turn_owned', `turn ${prev.id} was run by ${owner.label} and belongs to it; it cannot be continued by another turn — ${instead}`, details);
  }
  const instead = owner.messageRoute ? `message it with ${owner.messageRoute} or stop it with ${owner.stopRoute}` : `wait for the workflow or cancel it with ${owner.stopRoute}`;
  return new HttpError(409, 'previous_turn_owned', `turn ${prev.id} is running as ${owner.label}; it cannot be continued, steered or interrupted by another turn until it has finished — ${instead}`, details);
}
