/**
 * How the job service steers a live turn: through the steering service (src/turns/inputs/), as a
 * message from source `background_job`. A turn that has finished meanwhile (409 `turn_finished`)
 * is reported as undefined so the caller can deliver another way; other errors propagate.
 */
import type { TurnInputs } from '../turns/inputs/turn-inputs.js';

export function steerWith(inputs: Pick<TurnInputs, 'send'>): (turnId: string, text: string) => Promise<{ message_id: string } | undefined> {
  return async (turnId, text) => {
    try {
      const queued = await inputs.send(turnId, text, 'background_job');
      return { message_id: queued.message_id };
    } catch (err) {
      if ((err as { code?: string }).code === 'turn_finished') return undefined;
      throw err;
    }
  };
}
