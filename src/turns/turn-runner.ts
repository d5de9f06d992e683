/**
 * The turn runner of one instance: claims turns from the {@link TurnQueue} (oldest first, at most
 * MAX_CONCURRENT_TURNS at once), keeps its claims alive with one heartbeat a second renewing all
 * of them in one statement (which also picks up a cancel stored by any instance; a cancel's
 * broadcast renews at once, so it is seen without waiting for the tick), and runs each claimed
 * turn (src/turns/turn-run.ts).
 *
 * Wake-ups: in-process `wake()` after a turn is created or finished, and a poll every second for
 * turns enqueued elsewhere or whose owner's lease ran out.
 *
 * Fencing (Postgres): each run gets a lease fence (this instance's id and the claim epoch) that its
 * writes carry (src/store/lease-fence.ts); a lost lease — found by the heartbeat, or by a store
 * that refused a write — marks the fence lost, aborts the run and leaves the turn to its new holder.
 */
import type { LeaseFence } from '../store/lease-fence.js';
import type { TurnQueue } from '../store/turn-queue.js';
import { runClaimedTurn, type RunControl, type TurnRunDeps } from './turn-run.js';
import { FailureLog } from '../failure-log.js';
import { DataDirLostError } from '../store/database.js';
import { forgetStoredUsage } from './cut-requests.js';

export const HEARTBEAT_MS = 1000;
/** How long a turn that cannot start yet (its previous turn is active) stays out of the queue. */
export const DEFER_MS = 500;
/**
 * Pause before a turn whose run stopped on a storage failure (`stalled`) is let go for its next
 * run, ms: this, doubled for each further such stop of the same turn in a row on this instance, up
 * to {@link STALL_MAX_MS}. A passing outage costs the first pause; a failure that persists while
 * the database still answers reads (a full disk, a row it refuses) resumes the turn — and pays
 * for its model request — a few times an hour instead of in a tight loop.
 */
export const STALL_BASE_MS = 500;
export const STALL_MAX_MS = 300_000;

interface Running {
  /** The turn's id. */
  id: string;
  controller: AbortController;
  done: Promise<void>;
  cancelRequested: boolean;
  lost: boolean;
  /** Set while the run, stalled, pauses before its turn is let go: ends the pause now. */
  endPause?: () => void;
  /** The run stalled after a model request it did not checkpoint (RunControl.stalledAfterRequest). */
  usageCut?: boolean;
  /** The run's lease fence (Postgres: the claim epoch), marked lost with `lost`. */
  fence?: LeaseFence;
  /**
   * Set when this instance claimed the turn again while this (stale) run still went on, after
   * another instance had held it: the claim epoch to start a fresh run with once this one ended.
   */
  relaunch?: number;
}

export interface TurnRunnerDeps extends TurnRunDeps {
  queue: TurnQueue;
  /** This instance's owner id in claims. */
  owner: string;
  /** Called after a run of turn `id` ended (finished or detached). */
  onRunEnded: (id: string) => void;
  /** For `previous_turn_id`: resolves when that turn is finished. */
  waitFinished: RunControl['waitFinished'];
  /**
   * Called after a run paused (status `waiting` stored): queues the turn again when what it
   * waits for arrived meanwhile (src/turns/approvals/approval-service.ts `afterWait`).
   */
  onWaiting?: (id: string) => Promise<void>;
  /** Broadcasts of any instance: `cancel <id>` of a turn running here renews the claims now (which reads the stored cancel). */
  notifier?: { onBroadcast?(listener: (topic: string) => void): () => void };
}

export class TurnRunner {
  private readonly running = new Map<string, Running>();
  private pumping = false;
  private again = false;
  private stopping = true;
  /** One timer a second: the heartbeat renewing this instance's claims, then a claim poll. */
  private tick: NodeJS.Timeout | undefined;
  private beating = false;
  private beatAgain = false;
  private unlisten: (() => void) | undefined;
  /** Turn id → its runs in a row here that ended `stalled` (cleared by any other ending). */
  private readonly stalls = new Map<string, number>();
  /** Failed claim passes (an outage): logged once, then summarized (src/failure-log.ts). */
  private readonly claimFailures: FailureLog;
  /** Failed heartbeats (an outage: one a second while turns run here): logged once, then summarized. */
  private readonly beatFailures: FailureLog;

  constructor(private readonly d: TurnRunnerDeps) {
    this.claimFailures = new FailureLog(d.log, 'claiming turns');
    this.beatFailures = new FailureLog(d.log, 'turn heartbeat');
  }

  /** Start claiming. */
  start(): void {
    this.stopping = false;
    this.tick = setInterval(() => {
      void this.beat();
      this.wake();
    }, HEARTBEAT_MS);
    this.tick.unref();
    this.unlisten = this.d.notifier?.onBroadcast?.((topic) => {
      if (topic.startsWith('cancel ') && this.running.has(topic.slice('cancel '.length))) void this.beat();
    });
    this.wake();
  }

  /** Stop claiming, detach running turns (they resume on the next start) and wait (bounded). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    if (this.tick) clearInterval(this.tick);
    this.unlisten?.();
    const runs = [...this.running.values()];
    for (const r of runs) r.controller.abort(new Error('service shutting down'));
    for (const r of runs) r.endPause?.();
    await Promise.race([Promise.all(runs.map((r) => r.done)), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  get size(): number {
    return this.running.size;
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /** Abort a locally running turn because a client cancelled it. False when not running here. */
  cancelLocal(id: string): Promise<void> | undefined {
    const r = this.running.get(id);
    if (!r) return undefined;
    if (r.endPause) {
      // Its run already stopped (stalled): let the turn go now; its next run reads the stored cancel.
      r.endPause();
      return undefined;
    }
    r.cancelRequested = true;
    r.controller.abort(new Error('cancelled by request'));
    return r.done;
  }

  /** Claim as many turns as may run now. */
  wake(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .then(
        () => this.claimFailures.succeeded(),
        (err) => this.claimFailures.failed(err),
      )
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async pump(): Promise<void> {
    while (!this.stopping && this.running.size < this.d.config.MAX_CONCURRENT_TURNS) {
      const claimed = await this.d.queue.claim(this.d.owner, Date.now(), this.d.config.TURN_LEASE_MS);
      if (!claimed) return;
      // Our own lease ran out while its run went on here (the database was away longer than
      // TURN_LEASE_MS, so no heartbeat could renew it) and the claim took the turn back: the claim
      // only renewed the lease. A second run beside the first would request the model and run the
      // tools again, store events after the turn's terminal one, and the first of the two to end
      // would drop the other's heartbeat.
      const entry = this.running.get(claimed.id);
      if (entry) {
        // Nobody else held it meanwhile (same claim epoch): the run goes on with its lease. Else
        // another instance had it (and may have advanced it): this run is stale — its writes are
        // fenced off already — so it stops, and a fresh run resumes the turn from its checkpoint.
        if (claimed.epoch !== undefined && entry.fence && claimed.epoch !== entry.fence.epoch) {
          entry.relaunch = claimed.epoch;
          this.loseLease(entry, 'another instance held the turn meanwhile; a fresh run resumes it here');
        }
        continue;
      }
      this.launch(claimed.id, claimed.previousRun, claimed.epoch);
    }
  }

  /**
   * @param epoch the claim epoch (Postgres): the run's writes are fenced with it
   *   (src/store/lease-fence.ts); absent (SQLite): not fenced.
   */
  private launch(id: string, previousRun: RunControl['previousRun'], epoch?: number): void {
    const entry: Running = { id, controller: new AbortController(), done: Promise.resolve(), cancelRequested: false, lost: false };
    if (epoch !== undefined) entry.fence = { turnId: id, owner: this.d.owner, epoch, lost: false };
    this.running.set(id, entry);
    const control: RunControl = {
      controller: entry.controller,
      previousRun,
      cancelRequested: () => entry.cancelRequested,
      detached: () => (this.stopping || entry.lost) && !entry.cancelRequested,
      leaseLost: () => entry.lost,
      ...(entry.fence ? { fence: entry.fence } : {}),
      loseLease: (why) => this.loseLease(entry, why ?? 'a write of the run was refused'),
      waitFinished: this.d.waitFinished,
      stalledAfterRequest: () => void (entry.usageCut = true),
    };
    entry.done = runClaimedTurn(this.d, id, control)
      .then(async (end) => {
        if (end === 'stalled') await this.pauseStalled(id, entry);
        else this.stalls.delete(id);
        if (entry.lost) return;
        // A stall after a request it did not checkpoint: that request's usage is unknown (as a
        // graceful stop marks it). If even that write fails, the turn is not released: its lease
        // runs out and the next claim resumes it as after a crash, which marks usage unknown too.
        if (end === 'stalled' && entry.usageCut) {
          try {
            await forgetStoredUsage(this.d.checkpoints, id, entry.fence);
          } catch (err) {
            this.d.log?.error({ err, turn_id: id }, 'marking the usage of a stalled turn unknown failed: the turn is left to its lease, and resumes as after a crash');
            return;
          }
        }
        if (end === 'detached' || end === 'stalled') await this.d.queue.release(id, this.d.owner);
        else if (end === 'waiting') {
          if (await this.d.queue.wait(id, this.d.owner)) await this.d.onWaiting?.(id);
        }
        else if (end === 'deferred') await this.d.queue.defer(id, this.d.owner, Date.now() + DEFER_MS);
        else await this.d.queue.finish(id, this.d.owner);
      })
      .catch((err) => {
        // DATA_DIR taken over (logged once, the service stops): the turn is the new owner's.
        if (!(err instanceof DataDirLostError)) this.d.log?.error({ err, turn_id: id }, 'turn run crashed');
      })
      .finally(() => {
        if (this.running.get(id) === entry) this.running.delete(id);
        this.d.onRunEnded(id);
        // Claimed again while this stale run ended: the claim is held; a fresh run resumes the turn.
        if (entry.relaunch !== undefined && !this.stopping && !this.running.has(id)) this.launch(id, 'lost', entry.relaunch);
        this.wake();
      });
  }

  /**
   * The run of `entry` no longer holds its turn's lease: it stops, its writes are refused, the turn
   * is left alone. Logged once per run, whichever way it learned it first.
   * @param why how the run learned it (for the log line).
   */
  private loseLease(entry: Running, why: string): void {
    if (!entry.lost) this.d.log?.info({ turn_id: entry.id, why }, `the run of the turn stops: this instance no longer holds the turn's lease (${why})`);
    entry.lost = true;
    if (entry.fence) entry.fence.lost = true;
    entry.controller.abort(new Error('lease lost'));
    entry.endPause?.();
  }

  /**
   * Hold stalled turn `id` (its claim still renewed by the heartbeat, so no instance takes it) for
   * {@link STALL_BASE_MS} doubled per stall in a row, at most {@link STALL_MAX_MS}; ends early when
   * this runner stops, the claim is lost or a client cancels the turn.
   */
  private async pauseStalled(id: string, entry: Running): Promise<void> {
    const n = (this.stalls.get(id) ?? 0) + 1;
    this.stalls.set(id, n);
    const ms = Math.min(STALL_BASE_MS * 2 ** Math.min(n - 1, 30), STALL_MAX_MS);
    this.d.log?.info({ turn_id: id, stalls_in_a_row: n, resume_in_ms: ms }, 'stalled turn: it resumes from its checkpoint after a pause');
    if (this.stopping || entry.lost) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => entry.endPause?.(), ms);
      entry.endPause = () => {
        clearTimeout(timer);
        entry.endPause = undefined;
        resolve();
      };
    });
  }

  /** Renew every claim of this instance at once; a claim lost or a cancel stored stops that run. */
  private async beat(): Promise<void> {
    if (this.beating) {
      this.beatAgain = true; // a cancel broadcast during a renewal: the renewal may have read before it was stored
      return;
    }
    if (this.running.size === 0) return;
    this.beating = true;
    const ids = [...this.running.keys()];
    try {
      const held = await this.d.queue.renewMany(ids, this.d.owner, Date.now(), this.d.config.TURN_LEASE_MS);
      this.beatFailures.succeeded();
      for (const id of ids) {
        const entry = this.running.get(id);
        if (!entry) continue; // ended meanwhile
        const r = held.get(id);
        if (!r) {
          this.loseLease(entry, 'the heartbeat found it held by another instance, or ended');
        } else if (r.cancelRequested && entry.endPause) {
          entry.endPause(); // stalled: its next run reads the stored cancel
        } else if (r.cancelRequested && !entry.cancelRequested) {
          entry.cancelRequested = true;
          entry.controller.abort(new Error('cancelled by request'));
        }
      }
    } catch (err) {
      // `turn heartbeat failed` once per run of failures (and per different error), a summary a minute, `… recovered` once.
      this.beatFailures.failed(err, { turns: ids.length });
    } finally {
      this.beating = false;
      if (this.beatAgain) {
        this.beatAgain = false;
        void this.beat();
      }
    }
  }
}
