/**
 * The turn service: creates turns (validation, idempotency, persistence), runs them through a
 * FIFO queue limited to MAX_CONCURRENT_TURNS (excess waits as `queued`, never rejected), cancels
 * them, and recovers after a crash. Each run builds the {@link TurnContext}, assembles the tools
 * (src/assembly/assemble.ts) and calls `runTurn` (src/runtime/loop.ts); every event goes to the
 * event log first (store, then stream).
 *
 * Record and log stay consistent: the turn record is finished BEFORE its terminal event is
 * appended, so a client that sees `turn.completed` and then GETs the turn reads the final status.
 */
import { uuidv7 } from 'uuidv7';
import type { TurnContext, TurnKind, TurnOrigin, WorkflowTaskBinding } from '../assembly/context.js';
import type { ToolFamily } from '../config.js';
import { buildProviderTools, providerToolNames } from '../runtime/provider-tools.js';
import { buildTurnContext } from './turn-context.js';
import { assembleTools as defaultAssemble } from '../assembly/assemble.js';
import type { ServiceRegistry } from '../assembly/services.js';
import type { Config } from '../config.js';
import { modelFor, type ModelClients } from '../model/model-clients.js';
import { requireModel } from '../model/require-model.js';
import { idempotencyKeyReused } from '../errors.js';
import { HttpError } from '../http/errors.js';
import type { ModelPort } from '../model/port.js';
import { isTerminalEvent, type TurnEvent } from '../runtime/events.js';
import type { RunTurnOptions, RunTurnResult, TranscriptItem } from '../runtime/turn-types.js';
import type { EventLog } from '../store/event-log.js';
import type { ListTurnsQuery, TurnOutcome, TurnStore } from '../store/turn-store.js';
import { inputItems, requestHash } from './turn-input.js';
import { isFinished, outcomeFromEvent, terminalFromResult } from './turn-outcome.js';
import type { CreateTurnInput, CreateTurnOptions, TurnRecord, TurnService } from './turn-service-types.js';
import { Waiters } from './waiters.js';
import { newTurnTrace } from '../telemetry/trace-context.js';

export type RunTurnFn = (options: RunTurnOptions<TurnContext>) => Promise<RunTurnResult>;

export interface TurnServiceDeps {
  config: Config;
  store: TurnStore;
  events: EventLog<TurnEvent>;
  registry: ServiceRegistry;
  /** The model client of MODEL_API, or undefined when no endpoint is configured (→ 503 model_not_configured). */
  modelClient: ModelPort | undefined;
  /** Clients per wire protocol, for turns whose request names `model_api`. */
  modelClients?: ModelClients;
  runTurn: RunTurnFn;
  assembleTools?: typeof defaultAssemble;
  log?: { info: (o: object, m?: string) => void; warn: (o: object, m?: string) => void; error: (o: object, m?: string) => void };
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

/** Binding of workflow task turns lives only in memory (functions); see recover(). */
type Ephemeral = { workflowTask?: WorkflowTaskBinding; finalAnswerGuard?: CreateTurnOptions['finalAnswerGuard'] };

export class DefaultTurnService implements TurnService {
  private readonly queue: string[] = [];
  private readonly running = new Map<string, Running>();
  private readonly ephemeral = new Map<string, Ephemeral>();
  private readonly waiters = new Waiters();
  private readonly assemble: typeof defaultAssemble;
  private stopping = false;
  /** Turns a client asked to cancel (vs. aborted by shutdown). */
  private readonly cancelRequested = new Set<string>();

  constructor(private readonly deps: TurnServiceDeps) {
    this.assemble = deps.assembleTools ?? defaultAssemble;
  }

  /** True when a model endpoint is configured. */
  get modelConfigured(): boolean {
    return this.deps.modelClient !== undefined;
  }

  /**
   * @throws HttpError 503 `model_not_configured`, 400 `model_required` (no `model` and no MODEL),
   *   409 `idempotency_key_reused` (same key, different body), 404 `previous_turn_not_found`,
   *   409 `previous_turn_active`, 409 `agent_mismatch`, 503 `shutting_down`.
   */
  async create(input: CreateTurnInput, options: CreateTurnOptions = {}): Promise<TurnRecord> {
    const { config, store } = this.deps;
    if (this.stopping) throw new HttpError(503, 'shutting_down', 'the service is shutting down');
    const model = requireModel(this.deps.modelClient !== undefined, input.model, config.MODEL);
    if (input.model_api !== undefined && !modelFor(this.deps.modelClients, this.deps.modelClient, input.model_api)) {
      throw new HttpError(400, 'model_api_unavailable', `model_api "${input.model_api}" is not available on this service; leave it out to use MODEL_API (${config.MODEL_API})`);
    }

    let hash: string | null = null;
    if (options.idempotencyKey !== undefined) {
      hash = requestHash({ input, kind: options.kind ?? 'main', origin: options.origin ?? { type: 'api' } });
      const existing = store.findByIdempotencyKey(options.idempotencyKey);
      if (existing) {
        if (existing.request_hash !== hash) throw idempotencyKeyReused('turn', existing.id);
        options.onReplay?.();
        return store.get(existing.id)!;
      }
    }
    if (input.previous_turn_id !== undefined) {
      const prev = store.get(input.previous_turn_id);
      if (!prev) throw new HttpError(404, 'previous_turn_not_found', `previous turn ${input.previous_turn_id} not found`);
      if (prev.status === 'queued' || prev.status === 'running') {
        throw new HttpError(409, 'previous_turn_active', `previous turn ${prev.id} has not finished (status ${prev.status})`);
      }
      if (prev.agent_id !== input.agent_id) {
        throw new HttpError(409, 'agent_mismatch', `previous turn ${prev.id} belongs to agent ${prev.agent_id}`);
      }
    }

    const id = uuidv7();
    store.insert({
      id,
      agent_id: input.agent_id,
      kind: options.kind ?? 'main',
      origin: options.origin ?? { type: 'api' },
      model,
      created_at: new Date().toISOString(),
      metadata: input.metadata ?? null,
      request: { ...input, model },
      idempotency_key: options.idempotencyKey ?? null,
      request_hash: hash,
      trace: newTurnTrace(options.traceparent),
    });
    if (options.workflowTask || options.finalAnswerGuard) {
      this.ephemeral.set(id, { workflowTask: options.workflowTask, finalAnswerGuard: options.finalAnswerGuard });
    }
    this.queue.push(id);
    this.pump();
    return store.get(id)!;
  }

  get(id: string): TurnRecord | undefined {
    return this.deps.store.get(id);
  }

  list(query: ListTurnsQuery): TurnRecord[] {
    return this.deps.store.list(query);
  }

  async cancel(id: string): Promise<TurnRecord | undefined> {
    const rec = this.deps.store.get(id);
    if (!rec) return undefined;
    if (rec.status === 'queued') {
      const i = this.queue.indexOf(id);
      if (i >= 0) this.queue.splice(i, 1);
      if (!this.running.has(id)) {
        await this.finishWith(id, { status: 'cancelled', error: null }, { type: 'turn.cancelled', calls: [] });
        this.notify(id);
        return this.deps.store.get(id);
      }
    }
    const run = this.running.get(id);
    if (run) {
      this.cancelRequested.add(id);
      run.controller.abort(new Error('cancelled by request'));
      await Promise.race([run.done, new Promise((r) => setTimeout(r, 10_000).unref())]);
    }
    return this.deps.store.get(id);
  }

  async waitForTerminal(id: string, signal?: AbortSignal): Promise<TurnRecord> {
    for (;;) {
      const rec = this.deps.store.get(id);
      if (!rec) throw new HttpError(404, 'not_found', `turn ${id} not found`);
      if (isFinished(rec) && !this.running.has(id)) return rec;
      signal?.throwIfAborted();
      await this.waiters.wait(id, signal);
    }
  }

  /**
   * Crash recovery, called once at start before any new turn: turns left `running` are marked
   * `failed` with code `interrupted` and get a terminal `turn.failed` event (unless their log
   * already ended, then the record follows the log); `queued` turns are queued again, except
   * workflow task turns, whose in-memory binding is gone (they fail as `interrupted` too).
   */
  async recover(): Promise<{ interrupted: number; requeued: number }> {
    const { store, events } = this.deps;
    let interrupted = 0;
    let requeued = 0;
    for (const id of store.idsWithStatus(['running', 'queued'])) {
      const rec = store.get(id)!;
      const last = await events.last(id);
      if (last && isTerminalEvent(last.event)) {
        store.finish(id, outcomeFromEvent(last.event, rec));
        continue;
      }
      if (rec.status === 'queued' && rec.kind !== 'workflow_task') {
        this.queue.push(id);
        requeued++;
        continue;
      }
      interrupted++;
      const error = { code: 'interrupted', message: 'the service stopped while this turn was running' };
      await this.finishWith(id, { status: 'failed', error }, { type: 'turn.failed', error });
    }
    this.pump();
    return { interrupted, requeued };
  }

  /** Stop taking turns, abort running ones and wait (bounded) for them to settle. */
  async stop(timeoutMs = 5000): Promise<void> {
    this.stopping = true;
    this.queue.length = 0;
    const runs = [...this.running.values()];
    for (const r of runs) r.controller.abort(new Error('service shutting down'));
    await Promise.race([Promise.all(runs.map((r) => r.done)), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  /**
   * The exact provider `tools` array a main turn with this configuration would send, from the
   * same assembler and the runtime's buildProviderTools. Nothing runs; the context's signal is
   * aborted afterwards.
   */
  async previewTools(req: { agent_id: string; tools?: ToolFamily[]; model?: string; brain?: boolean }) {
    const controller = new AbortController();
    const model = req.model ?? this.deps.config.MODEL ?? '';
    try {
      const ctx = buildTurnContext(this.deps.config, this.deps.registry, {
        turnId: 'preview',
        agentId: req.agent_id,
        kind: 'main',
        origin: { type: 'api' },
        model,
        tools: req.tools,
        brain: req.brain,
        signal: controller.signal,
      });
      const { tools, unavailable } = await this.assemble(ctx);
      const definitions = buildProviderTools(tools, { toolSearchMode: this.deps.config.TOOL_SEARCH_MODE });
      return { model: model || null, families: ctx.families, tools: providerToolNames(definitions), unavailable, definitions };
    } finally {
      controller.abort(new Error('preview finished'));
    }
  }

  /** Number of turns running now and waiting in the queue. */
  stats(): { running: number; queued: number } {
    return { running: this.running.size, queued: this.queue.length };
  }

  private pump(): void {
    while (!this.stopping && this.running.size < this.deps.config.MAX_CONCURRENT_TURNS && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const controller = new AbortController();
      const entry: Running = { controller, done: Promise.resolve() };
      this.running.set(id, entry);
      entry.done = this.run(id, controller)
        .catch((err) => this.deps.log?.error({ err, turn_id: id }, 'turn run crashed'))
        .finally(() => {
        this.running.delete(id);
        this.ephemeral.delete(id);
        this.cancelRequested.delete(id);
        this.notify(id);
        this.pump();
      });
    }
  }

  private notify(id: string): void {
    this.waiters.wake(id);
  }

  /** Finish the record, then append the terminal event (record first: see file comment). */
  private async finishWith(
    id: string,
    o: { status: TurnOutcome['status']; error: TurnOutcome['error'] },
    event: TurnEvent,
  ): Promise<void> {
    const rec = this.deps.store.get(id)!;
    this.deps.store.finish(id, {
      status: o.status,
      completed_at: new Date().toISOString(),
      output_text: rec.output_text,
      stop_reason: rec.stop_reason,
      steps: rec.steps,
      usage: rec.usage,
      error: o.error,
      transcript: this.deps.store.getTranscript(id) ?? null,
    });
    await this.deps.events.append(id, event);
  }

  private async run(id: string, controller: AbortController): Promise<void> {
    const { store, events, config, registry } = this.deps;
    const rec = store.get(id);
    const request = store.getRequest(id);
    if (!rec || !request || rec.status !== 'queued') return;
    store.markRunning(id, new Date().toISOString());
    const startedMs = Date.now();
    this.deps.log?.info({ turn_id: id, agent_id: rec.agent_id, kind: rec.kind, model: rec.model }, 'turn started');
    let terminal: TurnEvent | undefined;
    const emit = async (event: TurnEvent) => {
      if (terminal) return; // nothing after the terminal event
      if (event.type === 'turn.cancelled' && this.stopping && !this.cancelRequested.has(id)) {
        // Aborted by shutdown, not by a client: report it like a crash would be.
        event = { type: 'turn.failed', error: { code: 'interrupted', message: 'the service shut down while this turn was running' } };
      }
      if (isTerminalEvent(event)) {
        terminal = event;
        store.finish(id, outcomeFromEvent(event, store.get(id)!));
      }
      try {
        await events.append(id, event);
      } catch (err) {
        this.deps.log?.error({ err, turn_id: id }, 'failed to append turn event');
      }
    };
    try {
      const ctx = buildTurnContext(config, registry, {
        turnId: id,
        agentId: rec.agent_id,
        kind: rec.kind,
        origin: rec.origin,
        model: rec.model,
        tools: request.tools,
        brain: request.brain,
        skills: request.skills,
        signal: controller.signal,
        workflowTask: this.ephemeral.get(id)?.workflowTask,
      });
      const { tools, unavailable, instructions: extra } = await this.assemble(ctx);
      const instructions = [request.instructions, ...(extra ?? [])].filter(Boolean).join('\n\n') || undefined;
      let input: TranscriptItem[] = inputItems(request.input);
      if (request.previous_turn_id) {
        await this.running.get(request.previous_turn_id)?.done;
        input = [...(store.getTranscript(request.previous_turn_id) ?? []), ...input];
      }
      const result = await this.deps.runTurn({
        turnId: id,
        model: modelFor(this.deps.modelClients, this.deps.modelClient, request.model_api) ?? this.deps.modelClient!,
        modelName: rec.model,
        instructions,
        input,
        tools,
        unavailable,
        maxSteps: request.max_steps ?? config.MAX_STEPS,
        signal: controller.signal,
        emit,
        turnContext: ctx,
        finalAnswerGuard: this.ephemeral.get(id)?.finalAnswerGuard,
        options: {
          parallelLimit: config.PARALLEL_TOOL_LIMIT,
          maxToolCallsPerResponse: config.MAX_TOOL_CALLS_PER_RESPONSE,
          toolOutputMaxChars: config.TOOL_OUTPUT_MAX_CHARS,
          toolTimeoutMs: config.TOOL_TIMEOUT_MS,
          toolSearchMode: config.TOOL_SEARCH_MODE,
        },
      });
      if (!terminal) await emit(terminalFromResult(result));
      const final = store.get(id)!;
      store.finish(id, {
        status: final.status as TurnOutcome['status'],
        completed_at: final.completed_at ?? new Date().toISOString(),
        output_text: result.outputText,
        stop_reason: result.stopReason ?? final.stop_reason,
        steps: result.steps,
        usage: result.usage,
        error: final.error,
        transcript: result.transcript,
      });
    } catch (err) {
      this.deps.log?.error({ err, turn_id: id }, 'turn run failed');
      if (!terminal) {
        const message = err instanceof Error ? err.message : String(err);
        await emit({ type: 'turn.failed', error: { code: 'internal_error', message } });
      }
    } finally {
      const final = store.get(id);
      this.deps.log?.info(
        { turn_id: id, status: final?.status, steps: final?.steps, usage: final?.usage, error: final?.error?.code, duration_ms: Date.now() - startedMs },
        'turn finished',
      );
    }
  }
}

export type { TurnKind, TurnOrigin };
