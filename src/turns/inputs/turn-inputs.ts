/**
 * TurnInputs: steering a turn that has not finished. `send` stores a message at once (with event
 * `input.queued {message_id}`); the turn's runner adds it to the transcript as a user message at
 * the next round boundary — after a round's calls are answered, before the next model request,
 * never inside a round — with event `input.applied {message_id}`. Messages are applied in the
 * order they were stored, each exactly once, also across a restart:
 *
 * - the turn's checkpoint carries an input cursor (`TurnState.inputCursor`, the highest seq in its
 *   transcript); the messages and the cursor are checkpointed together before the model request;
 * - only then are the messages marked applied and `input.applied` stored, so a crash in between
 *   stores the events at the next boundary (the cursor says the messages are in), never the
 *   messages twice;
 * - a turn that ends closes its queue before its terminal event ({@link TurnInputs.closeQueue},
 *   atomic with `send`'s store): what is left gets `input.not_applied {message_id, reason}`, and
 *   a later send is 409 `turn_finished` — an accepted message is never silently dropped. After the
 *   model's final answer the hook's read is a conditional close: pending messages continue the
 *   turn instead.
 *
 * A run's writes (closing its queue, marking applied, taking over an interrupted turn's messages)
 * carry its lease fence (src/store/lease-fence.ts): a run that lost its turn to another instance
 * closes and marks nothing (`LeaseLostError`), so the new holder applies and announces every message.
 *
 * Any caller may use it: the HTTP route (POST /v1/turns/{id}/messages), double-texting
 * (`multitask_strategy: steer`), other services (background jobs). It is engine-neutral: the
 * messages live in a {@link TurnInputStore} (SQLite or Postgres), the events in the turn's log.
 */
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../errors.js';
import { notFound } from '../../http/errors.js';
import type { TranscriptItem } from '../../model/port.js';
import type { TurnEvent } from '../../runtime/events.js';
import type { BoundaryInput } from '../../runtime/turn-types.js';
import type { TurnState } from '../../runtime/turn-state.js';
import type { EventLog, EventNotifier } from '../../store/event-log.js';
import type { IdempotencyKeys, IdempotentResult } from '../../store/idempotency-keys.js';
import type { LeaseFence } from '../../store/lease-fence.js';
import type { TurnStore } from '../../store/turn-store.js';
import { codePointCount } from '../../runtime/text-cut.js';
import { isFinished } from '../turn-outcome.js';
import type { StoredTurnInput, TurnInputStore } from './input-store.js';

/** Longest steering message (a turn's or a job's), in characters: code points, so an emoji counts 1 (src/runtime/text-cut.ts codePointCount, as zod's string bounds and brain titles count). */
export const MAX_INPUT_CHARS = 100_000;

/** What `send` returns (the 202 body of POST /v1/turns/{id}/messages). */
export interface QueuedInput {
  message_id: string;
  turn_id: string;
  /**
   * The `seq` of the message's `input.queued` event in the turn's event log — its SSE `id:`, like
   * every event's `seq`: `GET /v1/turns/{id}/events` with `Last-Event-ID: <seq>` streams what
   * follows the message (its `input.applied` or `input.not_applied` among them).
   */
  seq: number;
  /** Position among the turn's steering messages, from 1 (the order they are applied in). */
  position: number;
  status: 'queued';
  created_at: string;
}

export interface TurnInputsDeps {
  store: TurnInputStore;
  turns: Pick<TurnStore, 'get'>;
  /** The turn event log (stored, then notified). */
  events: EventLog<TurnEvent>;
  /**
   * Its notifier (not an SSE subscriber: not counted as one): a running turn hears of new
   * messages through it. Absent: it still reads at the times {@link TurnInputs.boundary} lists.
   */
  notifier?: Pick<EventNotifier<TurnEvent>, 'subscribe'>;
  clock?: () => Date;
  /** Idempotency keys ({@link TurnInputs.sendOnce}); absent: a key is ignored. */
  idempotency?: IdempotencyKeys;
}

/** The idempotency scope of steering messages (a reused key's 409 names `message_id`). */
export const MESSAGE_KEY_SCOPE = 'message';

/**
 * 409 `turn_finished`: steering a turn that already ended (or is ending: its steering queue is
 * closed and its terminal event follows); continue it with a new turn instead.
 */
export function turnFinished(id: string, status: string): DomainError {
  const state = ['completed', 'failed', 'cancelled'].includes(status) ? `has already finished (${status})` : 'is ending and takes no more messages';
  return new DomainError(
    'turn_finished',
    `turn ${id} ${state}; send the message as a new turn with "previous_turn_id": "${id}" to continue the conversation`,
    409,
    { turn_id: id, status, hint: { previous_turn_id: id } },
  );
}

/**
 * 400 `invalid_request` for a steering message longer than {@link MAX_INPUT_CHARS} characters
 * (code points) sent as the
 * request field `field` (`input` of a `steer` double-text), shaped like the messages route's
 * schema error: message `<field> must be at most … characters long, got N` and details
 * `[{path: field, code: "too_big", message}]`; undefined when `content` fits.
 */
export function steeringTooLong(field: string, content: string): DomainError | undefined {
  const chars = content.length <= MAX_INPUT_CHARS ? content.length : codePointCount(content);
  if (chars <= MAX_INPUT_CHARS) return undefined;
  const what = `must be at most ${MAX_INPUT_CHARS} characters long, got ${chars}`;
  const why = field === 'input' ? ' (a steering message: multitask_strategy "steer")' : '';
  return new DomainError('invalid_request', `${field} ${what}${why}`, 400, [{ path: field, code: 'too_big', message: what }]);
}

/** `input.not_applied` for steering message `messageId` of a turn ending with `terminal`. */
export function notApplied(messageId: string, terminal: TurnEvent): TurnEvent {
  const reason = terminal.type === 'turn.completed' ? terminal.stop_reason : terminal.type === 'turn.failed' ? 'failed' : 'cancelled';
  return { type: 'input.not_applied', message_id: messageId, reason };
}

/** The transcript item of a steering message. */
export function inputMessage(input: Pick<StoredTurnInput, 'content'>): TranscriptItem {
  return { type: 'message', role: 'user', content: input.content };
}

export class TurnInputs {
  private readonly clock: () => Date;
  /** Sends in progress on this instance, per turn (a close waits for their `input.queued`). */
  private readonly sending = new Map<string, Set<Promise<unknown>>>();
  /**
   * Turns whose queue this instance closed with nothing pending after the given cursor (at the
   * model's answer, {@link boundary}): a closed queue takes no message, so a later
   * {@link closeQueue} from that cursor or a later one has nothing to return and needs no store
   * transaction. Forgotten at that close (bounded by {@link MAX_CLOSED_EMPTY} otherwise).
   */
  private readonly closedEmpty = new Map<string, number>();

  constructor(private readonly d: TurnInputsDeps) {
    this.clock = d.clock ?? (() => new Date());
  }

  /**
   * Store `content` for turn `turnId` (queued, running or waiting) and log `input.queued`.
   * @param source who sent it (`api`, `double_text`, a service name); stored with the message.
   * @throws DomainError 404 `not_found` (no such turn), 409 `turn_finished` (with a hint to use
   *   `previous_turn_id`), 400 `invalid_request` with details (empty, or longer than
   *   {@link MAX_INPUT_CHARS} characters — code points, so an emoji counts 1).
   */
  async send(turnId: string, content: string, source = 'api'): Promise<QueuedInput> {
    if (content.length === 0) throw new DomainError('invalid_request', 'content must not be empty', 400, [{ path: 'content', code: 'too_small', message: 'must not be empty' }]);
    const tooLong = steeringTooLong('content', content);
    if (tooLong) throw tooLong;
    const rec = await this.d.turns.get(turnId);
    if (!rec) throw notFound('turn', turnId);
    if (isFinished(rec)) throw turnFinished(turnId, rec.status);
    const sending = this.storeAndLog(turnId, content, source, rec.status);
    const set = this.sending.get(turnId) ?? new Set();
    this.sending.set(turnId, set.add(sending));
    try {
      return await sending;
    } finally {
      set.delete(sending);
      if (set.size === 0 && this.sending.get(turnId) === set) this.sending.delete(turnId);
    }
  }

  private async storeAndLog(turnId: string, content: string, source: string, status: string): Promise<QueuedInput> {
    const stored = await this.d.store.add({ id: `msg_${randomUUID().replaceAll('-', '')}`, turn_id: turnId, content, source, created_at: this.clock().toISOString() });
    if (!stored) throw turnFinished(turnId, (await this.d.turns.get(turnId))?.status ?? status); // its queue closed meanwhile
    const logged = await this.d.events.append(turnId, { type: 'input.queued', message_id: stored.id });
    return { message_id: stored.id, turn_id: turnId, seq: logged.seq, position: stored.seq, status: 'queued', created_at: stored.created_at };
  }

  /**
   * {@link send} at most once per idempotency `key` (README.md "Idempotency"): the first request
   * stores the message; a repeat with the same `hash` (of the request body) stores nothing and
   * resolves with the first response (`replayed: true`), also once the turn has finished. Two
   * racing requests with one key store one message. Without a key: a plain `send`.
   * @throws DomainError 409 `idempotency_key_reused` (same key, another body; details
   *   `{message_id}`), and `send`'s errors (the key is then free again).
   */
  async sendOnce(turnId: string, content: string, source: string, key: string | undefined, hash: string): Promise<IdempotentResult<QueuedInput>> {
    if (key === undefined || !this.d.idempotency) return { value: await this.send(turnId, content, source), replayed: false };
    return this.d.idempotency.run(MESSAGE_KEY_SCOPE, key, hash, {
      create: () => this.send(turnId, content, source),
      idOf: (q) => q.message_id,
      load: (id) => this.queued(turnId, id),
    });
  }

  /** The message stored under idempotency `key` (its request hash and id), or undefined. */
  async keyed(key: string): Promise<{ request_hash: string; message_id: string | null } | undefined> {
    const row = await this.d.idempotency?.find(MESSAGE_KEY_SCOPE, key);
    return row && { request_hash: row.request_hash, message_id: row.resource_id };
  }

  /**
   * Message `messageId` of turn `turnId` as `send` first returned it (its `input.queued` event's seq
   * read back from the log), or undefined while the message or that event is not stored.
   */
  async queued(turnId: string, messageId: string): Promise<QueuedInput | undefined> {
    const m = (await this.d.store.listAfter(turnId, 0)).find((x) => x.id === messageId);
    if (!m) return undefined;
    const seq = await this.queuedEventSeq(turnId, messageId);
    return seq === undefined ? undefined : { message_id: m.id, turn_id: turnId, seq, position: m.seq, status: 'queued', created_at: m.created_at };
  }

  /** The seq of `input.queued {message_id: messageId}` in turn `turnId`'s log (read in pages). */
  private async queuedEventSeq(turnId: string, messageId: string): Promise<number | undefined> {
    for (let after = 0; ; ) {
      const page = await this.d.events.read(turnId, after, 500);
      const hit = page.find((e) => e.event.type === 'input.queued' && e.event.message_id === messageId);
      if (hit) return hit.seq;
      if (page.length < 500) return undefined;
      after = page.at(-1)!.seq;
    }
  }

  /**
   * Close turn `turnId`'s steering queue because the turn ends (call it before the terminal event
   * is stored): later sends get 409 `turn_finished`. Resolves with the messages the turn will never
   * apply — those after `cursor` (the state's input cursor; 0 for a turn that never ran) — for the
   * caller to report as `input.not_applied`. Idempotent (a second call returns them again).
   * @param fence the lease of the run closing it (src/store/lease-fence.ts): closed only while it
   *   is held, else rejects with `LeaseLostError`. Absent (a cancel of a turn that never ran): not fenced.
   */
  async closeQueue(turnId: string, cursor: number, fence?: LeaseFence): Promise<StoredTurnInput[]> {
    const closedAt = this.closedEmpty.get(turnId);
    this.closedEmpty.delete(turnId);
    const { pending } = closedAt !== undefined && cursor >= closedAt
      ? { pending: [] }
      : await this.d.store.close(turnId, cursor, this.clock().toISOString(), fence ? { fence } : {});
    // A send on this instance that stored its message before the close logs `input.queued` before
    // the caller logs `input.not_applied` (a send on another instance may log it just after).
    await Promise.allSettled([...(this.sending.get(turnId) ?? [])]);
    return pending;
  }

  /**
   * The steering messages turn `previousId` (ended: cancelled by an `interrupt` double-text) never
   * applied, for its interrupting successor to start with (README.md "Double-texting"): its queue
   * is closed (so none can follow) and the messages not marked applied are returned as user
   * messages. `taken()` marks them applied in the previous turn once the successor has
   * checkpointed them, so a later take returns them no more (a crash before that takes them again).
   * @param fence the successor run's lease on ITS turn: like every write of the run, the close and
   *   the mark are made only while it is held (else `LeaseLostError`), so a successor run that lost
   *   its turn changes nothing of the interrupted turn's queue — its new holder decides: it resumes
   *   from the successor's checkpoint (which holds the messages, when one was stored) or takes
   *   them over itself.
   */
  async takeOver(previousId: string, fence?: LeaseFence): Promise<{ items: TranscriptItem[]; taken(): Promise<void> }> {
    const left = await this.closeQueue(previousId, 0, fence);
    const upto = left.at(-1)?.seq ?? 0;
    return {
      items: left.map(inputMessage),
      taken: async () => {
        if (upto > 0) await this.d.store.markApplied(previousId, upto, this.clock().toISOString(), fence);
      },
    };
  }

  /**
   * The round-boundary hook of one run of turn `turnId` (`RunTurnOptions.atRoundBoundary`): the
   * messages after the state's input cursor as user messages, the new cursor, and `applied()`,
   * which (after the loop checkpointed them) marks them and emits `input.applied` through `emit`
   * — also for messages a crash left applied but unannounced.
   *
   * The store is read only when there may be something to read: at the run's first boundary, after
   * an `input.queued` of this turn was notified (any instance: the event log's notifier), after the
   * model answered (`at: 'answer'`, the last chance for a message to make the turn go on), and at
   * least every {@link INPUT_RECHECK_MS} in case a notification was lost. At `answer` the read is
   * the queue's conditional close: no message pending → the queue closes (a later send is refused,
   * never silently dropped); else they are returned and the turn goes on with them. A turn nobody steers
   * thus costs no read per round. Call `close()` when the run ends (drops the subscription).
   *
   * With `fence` (the run's lease, src/store/lease-fence.ts) the conditional close and the marks are
   * made only while the lease is held: the hook, or `applied()`, rejects with `LeaseLostError` and
   * closes or marks nothing once another instance took the turn over (the caller stops the run).
   */
  boundary(turnId: string, emit: (e: TurnEvent) => Promise<void> | void, fence?: LeaseFence): BoundaryHook {
    let announced = 0; // messages up to this seq are marked and announced (by this run)
    let mustRead = true; // the first boundary reads: messages may have come before this run
    let readAt = 0;
    const unsubscribe = this.d.notifier?.subscribe(turnId, (logged) => {
      if (logged.event.type === 'input.queued') mustRead = true;
    });
    const hook = async (state: TurnState, at: 'round' | 'answer' = 'round'): Promise<BoundaryInput | undefined> => {
      const now = this.clock().getTime();
      if (!mustRead && at === 'round' && now - readAt < INPUT_RECHECK_MS) return undefined;
      mustRead = false; // before the read: a message notified during it makes the next boundary read
      readAt = now;
      const cursor = state.inputCursor ?? 0;
      let fresh: StoredTurnInput[];
      if (at === 'answer') {
        const r = await this.d.store.close(turnId, cursor, this.clock().toISOString(), { ifIdle: true, ...(fence ? { fence } : {}) });
        if (r.closed && r.pending.length === 0) this.rememberClosedEmpty(turnId, cursor);
        fresh = r.pending;
      } else {
        fresh = await this.d.store.listAfter(turnId, cursor);
      }
      const upto = fresh.at(-1)?.seq ?? cursor;
      const applied = async () => {
        if (upto <= announced) return;
        for (const m of await this.d.store.markApplied(turnId, upto, this.clock().toISOString(), fence)) await emit({ type: 'input.applied', message_id: m.id });
        announced = upto;
      };
      if (fresh.length === 0) {
        await applied(); // announce what a crash left unannounced (usually nothing)
        return undefined;
      }
      return { items: fresh.map(inputMessage), cursor: upto, applied };
    };
    return Object.assign(hook, { close: () => unsubscribe?.() });
  }

  private rememberClosedEmpty(turnId: string, cursor: number): void {
    if (this.closedEmpty.size >= MAX_CLOSED_EMPTY) this.closedEmpty.clear();
    this.closedEmpty.set(turnId, cursor);
  }
}

/** Turns kept in TurnInputs' closed-empty memory at most (runs that never reach their close). */
const MAX_CLOSED_EMPTY = 10_000;

/** Longest a running turn goes without reading its steering messages when no notification came, ms. */
export const INPUT_RECHECK_MS = 1000;

/** {@link TurnInputs.boundary}: the loop's hook plus `close()` (call when the run ends). */
export type BoundaryHook = ((state: TurnState, at?: 'round' | 'answer') => Promise<BoundaryInput | undefined>) & { close(): void };
