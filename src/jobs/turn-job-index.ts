/**
 * Which job a turn belongs to (turn id → job id, or none), for the turn-event observer: known at
 * once for turns this instance created, else read once from the turn's origin and kept (bounded).
 */
import type { TurnStore } from '../store/turn-store.js';

const MAX_ENTRIES = 10_000;

export class TurnJobIndex {
  private readonly known = new Map<string, string | null>();

  constructor(private readonly turns: Pick<TurnStore, 'get'>) {}

  remember(turnId: string, jobId: string | null): void {
    if (this.known.size >= MAX_ENTRIES) this.known.clear();
    this.known.set(turnId, jobId);
  }

  /**
   * What {@link jobOf} answers without reading the store: the job id, null (the turn is no job's),
   * or undefined (not known yet).
   */
  knownJobOf(turnId: string): string | null | undefined {
    return this.known.get(turnId);
  }

  /** The job of turn `turnId` (a turn of kind `background_job`), or null. */
  async jobOf(turnId: string): Promise<string | null> {
    const hit = this.known.get(turnId);
    if (hit !== undefined) return hit;
    const turn = await this.turns.get(turnId);
    const jobId = turn?.kind === 'background_job' && turn.origin.type === 'background_job' ? turn.origin.job_id : null;
    if (turn) this.remember(turnId, jobId);
    return jobId;
  }
}
