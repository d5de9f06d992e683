/** The in-process {@link EventNotifier}: listeners per stream id in a Map (one process). */
import type { EventListener, EventNotifier, LoggedEvent } from './event-log.js';

export class InProcessEventNotifier<E extends { type: string } = { type: string }> implements EventNotifier<E> {
  private readonly listeners = new Map<string, Set<EventListener<E>>>();
  private readonly topics = new Set<(topic: string) => void>();

  broadcast(topic: string): void {
    for (const listener of [...this.topics]) {
      try {
        listener(topic);
      } catch {
        this.topics.delete(listener);
      }
    }
  }

  onBroadcast(listener: (topic: string) => void): () => void {
    this.topics.add(listener);
    return () => void this.topics.delete(listener);
  }

  notify(logged: LoggedEvent<E>): void {
    const set = this.listeners.get(logged.streamId);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(logged);
      } catch {
        set.delete(listener);
      }
    }
  }

  subscribe(streamId: string, listener: EventListener<E>): () => void {
    let set = this.listeners.get(streamId);
    if (!set) this.listeners.set(streamId, (set = new Set()));
    set.add(listener);
    return () => {
      const current = this.listeners.get(streamId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(streamId);
    };
  }
}
