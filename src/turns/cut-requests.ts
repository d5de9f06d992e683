/**
 * Usage of a turn whose run was stopped by this instance's shutdown (a graceful stop, README
 * "What survives a restart"). The resumed turn goes on from its last checkpoint, so a model
 * request made after that checkpoint — cut while it streamed, or answered but not checkpointed —
 * is made again and its tokens, spent but never reported, are missing from the checkpoint's usage.
 * As after a crash, the turn's usage then becomes unknown (null), never an undercount; a stop with
 * no such request (between rounds, or while a round's calls ran) keeps the exact usage.
 */
import type { ModelPort } from '../model/port.js';
import type { LeaseFence } from '../store/lease-fence.js';
import type { TurnCheckpointStore } from '../store/checkpoint-store.js';

/**
 * `port`, calling `onRequest` (synchronously) each time one of its streams starts being read —
 * when the request is sent. Everything else (its `endpoint` too) passes through unchanged.
 */
export function watchRequests(port: ModelPort, onRequest: () => void): ModelPort {
  return {
    endpoint: port.endpoint,
    stream(request, signal, options) {
      const stream = port.stream(request, signal, options);
      return {
        [Symbol.asyncIterator]() {
          onRequest();
          return stream[Symbol.asyncIterator]();
        },
      };
    },
  };
}

/**
 * Set the usage of turn `turnId`'s stored checkpoint to null (unknown), leaving the rest of it and
 * its transcript items as they are. No-op without a checkpoint or when its usage is already null.
 * Call it only while holding the turn's lease (the checkpoint is rewritten whole).
 * @throws what the store throws, or a SyntaxError when the stored state is not JSON.
 */
export async function forgetStoredUsage(store: TurnCheckpointStore, turnId: string, fence?: LeaseFence): Promise<void> {
  const cp = await store.load(turnId);
  if (!cp) return;
  const state = JSON.parse(cp.state) as { usage?: unknown };
  if (state.usage === null) return;
  await store.save(turnId, { ...cp, state: JSON.stringify({ ...state, usage: null }) }, [], fence);
}
