/**
 * Running one claimed turn: rebuild its context and tools, start it or resume it from its last
 * checkpoint (src/turns/resume.ts), advance it with `runTurn` while checkpointing
 * (src/turns/turn-checkpoints.ts), and finish its record.
 *
 * Record and log stay consistent: a client that sees `turn.completed` and then GETs the turn reads
 * the final status. The finished record and the terminal event are one commit
 * (`TurnStore.finishInBatch`, on SQLite and Postgres), so a crash leaves both or neither (then the
 * turn resumes and ends again); a store without it finishes the record BEFORE the terminal event
 * is appended (a crash between them would leave a finished turn without its terminal event). The final checkpoint
 * (transcript included) is stored before or with both, so every ending keeps its transcript and
 * `previous_turn_id` always continues the real conversation.
 *
 * Fencing (Postgres, src/store/lease-fence.ts): every write of the run for its turn — events,
 * checkpoints, the finished record, progress, approval rows, steering-queue writes (closing it,
 * marking messages applied, taking over an interrupted turn's) — carries the run's lease fence and is
 * stored only while the run still holds the lease. A refused write (`lease_lost`: another instance
 * took the turn over while this one's connection hung, say) stops the run like a lost lease, not
 * like a storage failure: its signal is aborted (the model stream is no longer read), nothing more
 * is written, the turn is left to its new holder. So does a write refused on SQLite because another
 * service took DATA_DIR over (`DataDirLostError`, src/store/database.ts): that one runs the turn.
 *
 * A run stopped by shutdown (or whose lease was lost) does not end the turn: no terminal event,
 * the lease is released (or left to its new owner) and the turn resumes from its checkpoint. The
 * calls it cut are left as a crash leaves them — started, not completed (no cancel outcome is
 * stored) — so the resumed round runs a read-only one again and reports any other interrupted.
 * So does a run whose storage failed: an event or a checkpoint that could not be stored, the
 * turn-record read or write its ending needs, or any statement that found the database
 * unavailable (`database_unavailable`, e.g. a statement past DATABASE_STATEMENT_TIMEOUT_MS) — the
 * run never goes on without its events or checkpoints, and never reports an unfinished turn as
 * finished.
 *
 * Steering messages (src/turns/inputs/) are added at round boundaries through the loop's
 * `atRoundBoundary` hook. A new turn whose `previous_turn_id` is still active (double-texting
 * `enqueue` / `interrupt`) does not start: the run ends `deferred` and the runner puts it back.
 */
import { coalesceDeltas } from './delta-coalescer.js';
import type { TurnContext } from '../assembly/context.js';
import type { ServiceRegistry } from '../assembly/services.js';
import type { assembleTools } from '../assembly/assemble.js';
import type { Config } from '../config.js';
import type { ModelPort, TranscriptItem } from '../model/port.js';
import { isModelAccessError } from '../model/model-error.js';
import { isStoppedWhileRunning } from '../runtime/dispatch.js';
import { isDomainError } from '../errors.js';
import { isTerminalEvent, type TurnEvent } from '../runtime/events.js';
import { initialTurnState, type PendingRound, type TurnState } from '../runtime/turn-state.js';
import type { PriorCall } from '../runtime/next-step.js';
import type { RunTurnOptions, RunTurnResult } from '../runtime/turn-types.js';
import type { TurnCheckpointStore } from '../store/checkpoint-store.js';
import type { EventLog } from '../store/event-log.js';
import type { TurnStore } from '../store/turn-store.js';
import type { ApprovalStore } from '../store/approval-store.js';
import { isLeaseLost, type LeaseFence } from '../store/lease-fence.js';
import { DataDirLostError } from '../store/database.js';
import { effectivePolicy } from './approvals/policy.js';
import { createTurnApprovalGate } from './approvals/turn-gate.js';
import { forgetStoredUsage, watchRequests } from './cut-requests.js';
import { turnSecrets, withTurnSecrets } from '../skills/turn-secrets.js';
import { countCrash, loadState, priorCallsFromLog } from './resume.js';
import type { TaskBindingResolver } from './task-binding.js';
import { TurnCheckpointer } from './turn-checkpoints.js';
import { buildTurnContext } from './turn-context.js';
import { inputItems } from './turn-input.js';
import { isFinished, outcomeFromEvent, terminalFromResult } from './turn-outcome.js';
import type { CreateTurnInput, TurnRecord } from './turn-service-types.js';
import type { TurnOutcome } from '../store/turn-store.js';
import { notApplied, type TurnInputs } from './inputs/turn-inputs.js';

export type RunTurnFn = (options: RunTurnOptions<TurnContext>) => Promise<RunTurnResult>;

/** How often a running turn's steps and usage are written to its record, at most (ms). */
export const PROGRESS_EVERY_MS = 1000;

export interface TurnRunDeps {
  config: Config;
  store: TurnStore;
  checkpoints: TurnCheckpointStore;
  events: EventLog<TurnEvent>;
  registry: ServiceRegistry;
  /** The default model (MODEL_API). */
  model: ModelPort;
  /** The model for a request's `model_api` (the default one when unset). */
  modelFor?: (api: CreateTurnInput['model_api']) => ModelPort;
  runTurn: RunTurnFn;
  assemble: typeof assembleTools;
  bindings?: TaskBindingResolver;
  /** Stored tool approvals (README "Tool approvals"); unset: no call waits for approval. */
  approvals?: ApprovalStore;
  /** Steering messages, applied at round boundaries (absent: none). */
  inputs?: TurnInputs;
  /**
   * Throws when this service may no longer write its database — SQLite: another service took
   * DATA_DIR over (`DataDirLostError`, src/store/database.ts `ownershipCheck`). Called before each
   * model request of a run, so a run whose service lost DATA_DIR sends none: its round's writes
   * are committed after the request starts (write-behind) and would find it too late. Absent: not checked.
   */
  checkOwnership?: () => void;
  log?: { info: (o: object, m?: string) => void; error: (o: object, m?: string) => void };
}

/** Control of one run by its runner. */
export interface RunControl {
  controller: AbortController;
  /** How the previous run ended (from the claim). */
  previousRun: 'none' | 'released' | 'lost';
  /** True once a client asked to cancel this turn. */
  cancelRequested(): boolean;
  /** True when the run must stop without ending the turn (shutdown, lost lease). */
  detached(): boolean;
  /** True once this run's lease was lost (another instance may own the turn now). */
  leaseLost(): boolean;
  /**
   * Called when the run stops `stalled` (a lost store) after a model request it did not
   * checkpoint: the runner marks the stored usage unknown once it can write again, before it lets
   * the turn go (the resumed run, claimed as released, would otherwise undercount that request).
   */
  stalledAfterRequest?(): void;
  /**
   * The run's lease on its turn (Postgres): every write the run makes for the turn carries it and
   * is stored only while the lease is held (src/store/lease-fence.ts). Absent: writes are not fenced.
   */
  fence?: LeaseFence;
  /**
   * Called once when a store refused a write of this run because it no longer holds the lease (or
   * its service no longer owns DATA_DIR); logs it.
   * @param why how the run learned it, for the log line (default: a write of the run was refused).
   */
  loseLease?(why?: string): void;
  /** Resolves when turn `id` has finished (for `previous_turn_id`). */
  waitFinished(id: string, signal: AbortSignal): Promise<void>;
}

/**
 * The transcript a continuation of turn `id` starts with: its stored transcript; for a turn that
 * never ran (cancelled while queued, e.g. interrupted by a double-text) its own conversation so far
 * — the transcript it would have started with plus its input — so no message is lost.
 */
export async function storedTranscript(d: Pick<TurnRunDeps, 'store' | 'checkpoints'>, id: string, depth = 0): Promise<TranscriptItem[]> {
  if ((await d.checkpoints.itemCount(id)) > 0) return d.checkpoints.items(id);
  const legacy = await d.store.getLegacyTranscript(id);
  if (legacy) return legacy;
  const request = depth < 100 ? await d.store.getRequest(id) : undefined;
  if (!request) return [];
  const before = request.previous_turn_id ? await storedTranscript(d, request.previous_turn_id, depth + 1) : [];
  return [...before, ...inputItems(request.input)];
}

/**
 * How a run ended: `finished` (the record is finished), `detached` (stopped without ending the
 * turn: shutdown or lost lease — it resumes from its checkpoint), `stalled` (stopped because what
 * it had to store could not be stored: it resumes from its checkpoint after a pause, see
 * src/turns/turn-runner.ts), `waiting` (paused at a checkpoint; claimable again once enqueued),
 * `deferred` (not started: its `previous_turn_id` is still active — double-texting with
 * `multitask_strategy: enqueue` or `interrupt`; it goes back to the queue and is claimed again
 * shortly).
 */
export type RunEnd = 'finished' | 'detached' | 'stalled' | 'waiting' | 'deferred';

export async function runClaimedTurn(d: TurnRunDeps, id: string, c: RunControl): Promise<RunEnd> {
  const rec = await d.store.get(id);
  const request = await d.store.getRequest(id);
  if (!rec || !request) return 'finished';
  const startedAt = Date.now();
  let seq = await d.events.lastSeq(id);
  // Resumed: after a restart or a lost run (previous_run), or after a pause (an approval, an answer: events stored already).
  d.log?.info({ turn_id: id, agent_id: rec.agent_id, kind: rec.kind, model: rec.model, previous_run: c.previousRun }, c.previousRun === 'none' && seq === 0 ? 'turn started' : 'turn resumed');
  let terminal: TurnEvent | undefined;
  /** The last state checkpointed (the final one before a terminal event). */
  let current: TurnState | undefined;
  /** The finished record's write when it joined the terminal event's batch, and its outcome. */
  let finishing: { written: Promise<boolean>; outcome: TurnOutcome } | undefined;
  /**
   * Wait for both. A record whose write failed alone (its own savepoint; the event is stored) is
   * finished directly; when the event was not stored either (one transaction), neither is, and
   * this rejects: the record stays unfinished and the turn resumes and ends again.
   */
  const finishedWith = async (f: NonNullable<typeof finishing>, stored: Promise<unknown>) => {
    const [written, event] = await Promise.allSettled([f.written, stored]);
    if (event.status === 'rejected') throw event.reason;
    if (written.status === 'rejected') {
      d.log?.error({ err: written.reason, turn_id: id }, 'finishing the turn record with its terminal event failed; finishing it alone');
      await d.store.finish(id, f.outcome, c.fence);
    }
  };
  /**
   * Set when this run could not store what it must (an event, a checkpoint, the finished record —
   * the database went away, a statement timed out, a disk filled): the run stores nothing more,
   * stops (its signal aborted) and ends `stalled`, so the turn resumes from its last checkpoint
   * with `turn.resumed` once the store is back (after the runner's pause) — as after a crash —
   * instead of going on with events or checkpoints missing.
   * @param what what failed, for the log line.
   */
  let storeLost: unknown;
  const loseStore = (err: unknown, what = 'failed to append turn event') => {
    if (storeLost !== undefined) return;
    storeLost = err;
    d.log?.error({ err, turn_id: id }, `${what}: the run stops; the turn resumes from its checkpoint`);
    c.controller.abort(new Error('the turn store is unavailable'));
  };
  /** True once a store refused a write of this run: the lease is another run's (see {@link refused}). */
  let fencedOut = false;
  const lostLease = () => fencedOut || c.leaseLost();
  /**
   * True when `err` is a store's refusal of a write because this run no longer holds the turn's
   * lease: the run stops as after a lost lease — not retried, not paused as a storage failure.
   */
  const refused = (err: unknown): boolean => {
    // A closed stream (its terminal event stored) also means the turn is not this run's any more;
    // so does a write refused because another service took this one's DATA_DIR over (SQLite).
    if (!isLeaseLost(err) && !(isDomainError(err) && err.code === 'stream_closed') && !(err instanceof DataDirLostError)) return false;
    if (!fencedOut) {
      fencedOut = true;
      if (c.loseLease) c.loseLease(err instanceof DataDirLostError ? 'another service took DATA_DIR over and resumes the turn' : undefined); // logs it
      else d.log?.info({ turn_id: id }, "a write of the run was refused: it no longer holds the turn's lease (another instance took the turn over); the run stops");
      c.controller.abort(new Error('lease lost'));
    }
    return true;
  };
  const detached = () => storeLost !== undefined || fencedOut || c.detached();
  /**
   * The cancel outcomes of calls this run's stop cut (shutdown or lost lease): not stored, so the
   * resumed round treats those calls as cut by a crash. Stored after all, before the terminal
   * event, when a client's cancel then ends the turn here.
   */
  const withheld: TurnEvent[] = [];
  const append = async (event: TurnEvent) => {
    if (terminal || storeLost !== undefined || lostLease()) return; // nothing after the terminal event, nor after a lost one or a lost lease
    if (isStoppedWhileRunning(event) && detached() && !c.cancelRequested()) {
      withheld.push(event);
      return;
    }
    if (isTerminalEvent(event)) {
      if (detached() && !c.cancelRequested()) return; // shutdown, lost lease or lost store: the turn goes on later
      for (const cut of withheld.splice(0)) await append(cut);
      // Steering messages the turn will never apply are reported before it ends (src/turns/inputs/).
      const unapplied = await d.inputs?.closeQueue(id, current?.inputCursor ?? 0, c.fence).catch((err: unknown) => void (refused(err) || d.log?.error({ err, turn_id: id }, 'closing the steering queue failed')));
      for (const m of unapplied ?? []) await append(notApplied(m.id, event));
      if (storeLost !== undefined || lostLease()) return;
      // The record is read BEFORE the run counts as ended: when the read (or, without
      // finishInBatch, the finish) fails, the turn is not finished, so the run stops and the turn
      // resumes and ends again — it must not report `finished` with no terminal event stored.
      let outcome: TurnOutcome;
      try {
        const rec = await d.store.get(id);
        if (!rec) throw new Error(`turn ${id} has no record`);
        outcome = outcomeFromEvent(event, rec);
        if (current && event.type !== 'turn.completed') Object.assign(outcome, { output_text: current.lastText, steps: current.steps, usage: current.usage ? { ...current.usage } : null });
        if (!d.store.finishInBatch) {
          await d.events.flushQueued?.(); // the final checkpoint and the events before it, before the record says finished
          await d.store.finish(id, outcome, c.fence);
        }
      } catch (err) {
        if (!refused(err)) loseStore(err, 'finishing the turn record failed');
        return;
      }
      if (terminal) return; // ended meanwhile (an event appended while the record was read)
      terminal = event;
      if (d.store.finishInBatch) {
        // One commit for the finished record and the terminal event appended just below (same
        // synchronous step), after the final checkpoint and the events before it (queued or stored earlier):
        // no crash can leave one without the other, and the event streams once the record says so.
        finishing = { written: d.store.finishInBatch(id, outcome, c.fence), outcome };
      }
      logFinished(d, id, outcome, startedAt);
    }
    try {
      if (!d.events.appendQueued) {
        const stored = d.events.append(id, event, c.fence);
        if (finishing) await finishedWith(finishing, stored);
        seq = (await stored).seq;
        return;
      }
      // Write-behind where nothing depends on the event being stored yet (it is, within this
      // event-loop turn, with the checkpoint that follows); waited for where something does.
      const q = d.events.appendQueued(id, event);
      seq = q.seq;
      if (finishing) await finishedWith(finishing, q.stored);
      else if (mustBeStored(event)) await q.stored;
      // Fairness under a burst of new turns: building the first model request waits for the next
      // event-loop turn, so the requests still being read in this one get their own start first
      // instead of queueing behind every earlier turn's request (bench:concurrency: p99 to
      // turn.started 0.82–1.18 s against 0.95–1.46 s without, in paired runs). A few µs a turn.
      if (event.type === 'turn.started') await new Promise<void>((resolve) => setImmediate(resolve));
      else q.stored.catch((err: unknown) => void (refused(err) || loseStore(err)));
    } catch (err) {
      if (!refused(err)) loseStore(err);
    }
  };
  // Deltas joined (≤ 1 per 50 ms or 4 KiB) and capped at MAX_EVENTS_PER_TURN (delta-coalescer.ts);
  // every event goes through it so a buffered delta is written before the next event.
  const emit = coalesceDeltas(append, { maxEvents: d.config.MAX_EVENTS_PER_TURN });
  // Steps and usage on the record while the turn runs: at most once a second (a commit per round
  // otherwise); exact again when it pauses or finishes (finish stores the outcome's own figures).
  let progressAt = 0;
  const writeProgress = async (s: TurnState) => {
    progressAt = Date.now();
    await d.store.updateProgress(id, { steps: s.steps, usage: s.usage }, c.fence);
  };
  const fail = async (error: { code: string; message: string }) => {
    await emit({ type: 'turn.failed', error });
    return 'finished' as const;
  };
  /** True while a model request was sent after the last checkpoint this run stored (cut-requests.ts). */
  let requestSinceCheckpoint = false;
  /**
   * A run stopped by this instance's shutdown after a model request it did not checkpoint: the
   * resumed turn makes that request again, so its usage is unknown (cut-requests.ts). A lost lease
   * is left to the new owner (it resumes as after a crash); a lost store cannot be written.
   */
  const detach = async (): Promise<'detached'> => {
    if (requestSinceCheckpoint && storeLost === undefined && !lostLease()) {
      await forgetStoredUsage(d.checkpoints, id, c.fence).catch((err: unknown) => void (refused(err) || d.log?.error({ err, turn_id: id }, 'marking the usage of a stopped turn unknown failed')));
    }
    return 'detached';
  };
  /** A run whose store was lost stops `stalled`; one that sent a request after its last checkpoint says so first (RunControl.stalledAfterRequest). */
  const stalled = (): 'stalled' => {
    if (requestSinceCheckpoint) c.stalledAfterRequest?.();
    return 'stalled';
  };
  try {
    const end = await run(rec, request);
    if (fencedOut) return 'detached'; // the turn is another run's: nothing more to do here
    if (storeLost !== undefined) return stalled();
    return end === 'detached' ? detach() : end;
  } catch (err) {
    if (refused(err) || fencedOut) return 'detached';
    if (storeLost !== undefined) return stalled();
    if (databaseUnavailable(err)) {
      // A read or write of the run found the database away (or a statement timed out): the turn
      // is not at fault — it resumes once the database answers, instead of failing.
      loseStore(err, 'the database is unavailable');
      return 'stalled';
    }
    d.log?.error({ err, turn_id: id }, 'turn run failed');
    if (!terminal && !detached()) await fail({ code: 'internal_error', message: err instanceof Error ? err.message : String(err) });
    // Storing that failure failed too: paused and resumed like any lost store, not released at once.
    if (storeLost !== undefined) return 'stalled';
    return terminal ? 'finished' : detach();
  }

  async function run(this: void, rec: TurnRecord, request: CreateTurnInput): Promise<RunEnd> {
    // Start fresh, or resume from the checkpoint.
    const cp = await d.checkpoints.load(id);
    let state: TurnState;
    let resume: RunTurnOptions['resume'];
    let checkpointer: TurnCheckpointer;
    if (!cp) {
      let input = inputItems(request.input);
      if (request.previous_turn_id && !(await previousFinished(d, request.previous_turn_id))) return 'deferred';
      // An interrupting turn also takes the steering messages the interrupted one never applied.
      let carried: Awaited<ReturnType<TurnInputs['takeOver']>> | undefined;
      if (request.previous_turn_id) {
        await c.waitFinished(request.previous_turn_id, c.controller.signal).catch(() => undefined);
        if (request.multitask_strategy === 'interrupt') carried = await takeOverInterrupted(d, request.previous_turn_id, rec, c.fence);
        input = [...(await storedTranscript(d, request.previous_turn_id)), ...(carried?.items ?? []), ...input];
      }
      state = initialTurnState(input);
      current = state;
      checkpointer = new TurnCheckpointer(d.checkpoints, id, 0, c.fence);
      await checkpointer.save(state);
      await carried?.taken();
      if (seq > 0) resume = { state };
    } else {
      const loaded = await loadState(d.checkpoints, id, cp);
      if (loaded.type === 'fail') return fail(loaded.error);
      state = loaded.state;
      current = state;
      checkpointer = new TurnCheckpointer(d.checkpoints, id, cp.itemCount, c.fence);
      const priorCalls = state.round ? await priorCallsFromLog(d.events, id, state.round.afterSeq) : undefined;
      if (c.previousRun === 'lost' && !state.ended) {
        const crash = countCrash(state, d.config.TURN_MAX_CRASHES);
        const answered = state.round !== undefined && roundAnswered(state.round, priorCalls);
        if (crash?.type === 'fail') {
          // A pending round whose calls all completed is part of the conversation (its tools ran):
          // it stays in the stored transcript a continuation starts from.
          if (answered) {
            foldAnsweredRound(state, priorCalls!);
            await checkpointer.save(state, { type: 'failed', error: crash.error });
          }
          return fail(crash.error);
        }
        // Cut between rounds (no round pending, or a pending round whose calls all completed —
        // a round the event log rebuilds is not checkpointed again after it — unless one of them
        // ended the turn, which makes no further request): a model request
        // may have been streaming when the service died — spent but never reported — so the
        // turn's usage is unknown from here on (null), never an undercount. Cut while a round's
        // calls ran: nothing is missing. (A graceful stop knows whether it cut a request and
        // marks the usage itself: cut-requests.ts.)
        if (!state.round || (answered && !endedByCall(priorCalls))) state.usage = null;
        await checkpointer.save(state);
      }
      resume = { state, ...(priorCalls ? { priorCalls } : {}), ...(state.ended ? { ended: state.ended } : {}) };
    }
    // A cancel stored before this claim (e.g. of a waiting turn) applies at once.
    if (c.cancelRequested() || (await d.store.cancelRequestedAt(id))) c.controller.abort(new Error('cancelled by request'));

    let live: Awaited<ReturnType<TaskBindingResolver>>;
    if (rec.kind === 'workflow_task') {
      const stored = await d.store.getBinding(id);
      live = stored && d.bindings ? await d.bindings(id, stored) : undefined;
      if (!live) return fail({ code: 'binding_unavailable', message: 'the workflow task of this turn no longer accepts it' });
    }
    const ctx = buildTurnContext(d.config, d.registry, {
      turnId: id,
      agentId: rec.agent_id,
      kind: rec.kind,
      origin: rec.origin,
      model: rec.model,
      tools: request.tools,
      brain: request.brain,
      skills: request.skills,
      approvals: request.approvals,
      signal: c.controller.signal,
      ...(live ? { workflowTask: live.workflowTask } : {}),
    });
    const { tools, unavailable, instructions: extra } = await d.assemble(ctx);
    const instructions = [request.instructions, ...(extra ?? [])].filter(Boolean).join('\n\n') || undefined;
    const boundary = d.inputs?.boundary(id, emit, c.fence);
    let result: RunTurnResult;
    try {
      result = await d.runTurn({
        turnId: id,
        // Its errors are scrubbed of every SKILL_SECRETS value the turn saw, as its tool results are.
        model: watchRequests(withTurnSecrets(request.model_api && d.modelFor ? d.modelFor(request.model_api) : d.model, turnSecrets(ctx)), () => {
          try {
            d.checkOwnership?.();
          } catch (err) {
            refused(err); // the run stops; the request is not sent
            throw err;
          }
          requestSinceCheckpoint = true;
        }),
        modelName: rec.model,
        instructions,
        input: state.transcript,
        tools,
        unavailable,
        maxSteps: request.max_steps ?? d.config.MAX_STEPS,
        signal: c.controller.signal,
        emit,
        lastSeq: () => seq,
        turnContext: ctx,
        ...(live?.finalAnswerGuard ? { finalAnswerGuard: live.finalAnswerGuard } : {}),
        ...(resume ? { resume } : {}),
        ...(d.approvals ? { approvals: turnApprovalGate(d, id, request, ctx, c.fence) } : {}),
        ...(boundary ? { atRoundBoundary: seeRefusals(boundary, refused) } : {}),
        checkpoint: async (s, next) => {
          // A round whose events were not all stored is not checkpointed: it runs again on resume.
          if (storeLost !== undefined || lostLease()) return;
          if (detached() && !c.cancelRequested() && next?.type === 'cancelled') return;
          try {
            await checkpointer.save(s, next);
          } catch (err) {
            // Never run on without checkpoints (the loop would swallow this): stop, and resume from
            // what is stored — which may be this very save, when only its answer was lost.
            if (!refused(err)) loseStore(err, 'storing the turn checkpoint failed');
            return;
          }
          requestSinceCheckpoint = false;
          current = s;
          // A refused write stops the run here (the loop ignores a checkpoint hook's errors).
          if (!next && Date.now() - progressAt >= PROGRESS_EVERY_MS) {
            await writeProgress(s).catch((err: unknown) => {
              if (!refused(err)) throw err;
            });
          }
        },
        options: {
          parallelLimit: d.config.PARALLEL_TOOL_LIMIT,
          maxToolCallsPerResponse: d.config.MAX_TOOL_CALLS_PER_RESPONSE,
          toolOutputMaxChars: d.config.TOOL_OUTPUT_MAX_CHARS,
          toolTimeoutMs: d.config.TOOL_TIMEOUT_MS,
          toolSearchMode: d.config.TOOL_SEARCH_MODE,
        },
      });
    } finally {
      boundary?.close();
    }
    if (!terminal) {
      if (detached() && !c.cancelRequested()) return 'detached';
      if (result.status === 'waiting') {
        if (current) await writeProgress(current); // a paused turn shows where it stands
        return 'waiting';
      }
      current = result.state ?? current;
      await emit(terminalFromResult(result));
    }
    return 'finished';
  }
}

/** True for the store's "database unavailable" refusal (HTTP 503 `database_unavailable`: down, unreachable or timed out). */
function databaseUnavailable(err: unknown): boolean {
  return isDomainError(err) && err.code === 'database_unavailable';
}

/**
 * Failure codes that say the service or its model endpoint is in trouble (logged at `error`), with
 * the model's refusals of the key or the model ({@link isModelAccessError}: HTTP 401/403/404, and
 * 405/501 from an address that is no model API).
 */
const TROUBLE = new Set(['connection_error', 'stream_interrupted', 'model_error', 'internal_error', 'resume_failed', 'crash_loop']);
const isTrouble = (code: string): boolean => TROUBLE.has(code) || isModelAccessError(code);

/** The `turn finished` log line: status, stop reason or error, steps, usage, duration of this run (ms). */
function logFinished(d: Pick<TurnRunDeps, 'log'>, id: string, o: TurnOutcome, startedAt: number): void {
  const error = o.error ?? undefined;
  const fields = { turn_id: id, status: o.status, stop_reason: o.stop_reason, steps: o.steps, usage: o.usage, duration_ms: Date.now() - startedAt, ...(error ? { error } : {}) };
  if (error && isTrouble(error.code)) d.log?.error(fields, 'turn finished');
  else d.log?.info(fields, 'turn finished');
}

/**
 * Append the answered pending round of `state` (see {@link roundAnswered}) to its transcript and
 * clear `state.round`: the round's items, then the custom and function call outputs the event log
 * holds (`prior`), each kind in the model's order — as src/runtime/round-dispatch.ts appends them.
 * For a turn that ends without dispatching the round again (`crash_loop`): the calls that ran stay
 * in the transcript its continuations start from.
 */
function foldAnsweredRound(state: TurnState, prior: ReadonlyMap<string, PriorCall>): void {
  const round = state.round!;
  state.transcript.push(...round.items);
  if (round.responseId) {
    state.lastResponseId = round.responseId;
    state.coveredItems = state.transcript.length;
  }
  const out = (id: string) => (prior.get(id) as Extract<PriorCall, { state: 'completed' }>).output;
  for (const i of round.items) if (i.type === 'custom_tool_call') state.transcript.push({ type: 'custom_tool_call_output', call_id: i.call_id, output: out(i.call_id) });
  for (const i of round.items) if (i.type === 'function_call') state.transcript.push({ type: 'function_call_output', call_id: i.call_id, output: out(i.call_id) });
  state.round = undefined;
}

/**
 * True when the event log holds a `tool.completed` for every call of the pending round `round`
 * (function and custom calls; a round with a client tool search never counts, its outputs are
 * not events): the round's dispatch had ended, so the service may have died during the next
 * model request.
 */
function roundAnswered(round: PendingRound, prior: ReadonlyMap<string, PriorCall> | undefined): boolean {
  let calls = 0;
  for (const item of round.items) {
    if (item.type === 'tool_search_call' && item.execution === 'client') return false;
    if (item.type !== 'function_call' && item.type !== 'custom_tool_call') continue;
    calls++;
    if (prior?.get(item.call_id)?.state !== 'completed') return false;
  }
  return calls > 0;
}

/** True when a call whose `tool.completed` the event log holds (`prior`) ended the turn (`ends_turn`: clarify, submit_result, …). */
function endedByCall(prior: ReadonlyMap<string, PriorCall> | undefined): boolean {
  for (const p of prior?.values() ?? []) if (p.state === 'completed' && p.endsTurn) return true;
  return false;
}

/**
 * Events that must be stored before the runner goes on: `tool.started` (before the tool runs, so a
 * crash during it reports the call interrupted instead of running it again), `approval.requested`
 * (before the approval row and the pause), and the terminal event.
 */
function mustBeStored(event: TurnEvent): boolean {
  return event.type === 'tool.started' || event.type === 'approval.requested' || isTerminalEvent(event);
}

/**
 * The steering hook `hook` with its errors and those of its `applied()` shown to `refused` first:
 * the loop ignores them (a steering read must not end a turn), but a write refused because the run
 * lost its lease must stop the run like any other refused write.
 */
function seeRefusals(hook: NonNullable<RunTurnOptions['atRoundBoundary']>, refused: (err: unknown) => boolean): NonNullable<RunTurnOptions['atRoundBoundary']> {
  return async (state, at) => {
    try {
      const got = await hook(state, at);
      const applied = got?.applied;
      if (!got || !applied) return got;
      return {
        ...got,
        applied: async () => {
          try {
            await applied();
          } catch (err) {
            refused(err);
            throw err;
          }
        },
      };
    } catch (err) {
      refused(err);
      throw err;
    }
  };
}

function turnApprovalGate(d: TurnRunDeps, id: string, request: CreateTurnInput, ctx: TurnContext, fence: LeaseFence | undefined) {
  const policy = effectivePolicy(request.approvals, d.config.APPROVAL_POLICY);
  return createTurnApprovalGate({ store: d.approvals!, turnId: id, policy, timeoutS: d.config.APPROVAL_TIMEOUT_S, turnContext: ctx, ...(fence ? { fence } : {}) });
}

/**
 * The steering messages an `interrupt` of `rec` left unapplied, taken over from each turn it
 * interrupted: `previousId` and, back through turns cancelled before they ever ran (follow-ups
 * queued behind it), the turn that was running — each only when it ended after `rec` was created
 * (the interrupt ended it, not an earlier ending). Oldest turn's messages first.
 */
async function takeOverInterrupted(d: Pick<TurnRunDeps, 'store' | 'inputs'>, previousId: string, rec: TurnRecord, fence: LeaseFence | undefined): Promise<{ items: TranscriptItem[]; taken(): Promise<void> } | undefined> {
  if (!d.inputs) return undefined;
  const parts: { items: TranscriptItem[]; taken(): Promise<void> }[] = [];
  for await (const prev of backToFirstRun(d, previousId)) {
    if (prev.completed_at == null || prev.completed_at < rec.created_at) break;
    parts.unshift(await d.inputs.takeOver(prev.id, fence));
  }
  return { items: parts.flatMap((p) => p.items), taken: async () => void (await Promise.all(parts.map((p) => p.taken()))) };
}

/**
 * True when turn `id` is finished (or unknown) and so is every turn before it that it never got to
 * wait for: a turn cancelled while queued (an interrupted follow-up) never ran, so the turn it was
 * queued behind may still be ending. A turn continuing `id` may start then.
 */
async function previousFinished(d: Pick<TurnRunDeps, 'store'>, id: string): Promise<boolean> {
  for await (const prev of backToFirstRun(d, id)) if (!isFinished(prev)) return false;
  return true;
}

/**
 * Turn `id` and, back through `previous_turn_id`, the turns before it up to and including the
 * first one that ran (`started_at` set): a turn cancelled while queued never ran, so what it
 * waited for is the turn before it. Stops at an unknown turn; at most 100 turns.
 */
async function* backToFirstRun(d: Pick<TurnRunDeps, 'store'>, id: string): AsyncGenerator<TurnRecord> {
  for (let cur: string | undefined = id, i = 0; cur && i < 100; i++) {
    const t = await d.store.get(cur);
    if (!t) return;
    yield t;
    if (t.started_at != null) return; // it ran, so the turns before it had ended
    cur = (await d.store.getRequest(cur))?.previous_turn_id;
  }
}


