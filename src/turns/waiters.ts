/**
 * One-shot wake-ups keyed by id (a turn or workflow id), for "wait until this finishes" loops
 * that re-read the store after each wake-up: `wait(id, signal)` resolves at the next
 * `wake(id)`, or rejects with `signal.reason` when the signal aborts first (the waiter is then
 * removed). `wake(id)` resolves every current waiter of `id` once; later `wait`s need a later
 * `wake`. Callers check the store BEFORE waiting, and wake AFTER writing the store.
 */
export class Waiters {
  private readonly byId = new Map<string, Set<() => void>>();

  wait(id: string, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let set = this.byId.get(id);
      if (!set) this.byId.set(id, (set = new Set()));
      const waiters = set;
      const done = () => {
        waiters.delete(done);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        waiters.delete(done);
        if (waiters.size === 0 && this.byId.get(id) === waiters) this.byId.delete(id);
        reject(signal!.reason);
      };
      waiters.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  wake(id: string): void {
    const set = this.byId.get(id);
    if (!set) return;
    this.byId.delete(id);
    for (const w of set) w();
  }
}
