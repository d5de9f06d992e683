/**
 * The steering box of the open turn: a text field that sends a message into a queued, running or
 * waiting turn (POST /v1/turns/{id}/messages). The message goes into the turn's transcript before
 * its next model request; the box says so when the turn's stream shows `input.applied` for it.
 * Hidden while no unfinished turn is open.
 */
import { ApiError, plainWords, type Api } from './api.js';
import type { TurnState } from './turn-state.js';

const OPEN_STATUSES = new Set<string>(['queued', 'running', 'waiting']);

const byId = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

export class SteerBox {
  private readonly form = byId<HTMLFormElement>('steer-form');
  private readonly input = byId<HTMLTextAreaElement>('steer-input');
  private readonly button = byId<HTMLButtonElement>('steer-send');
  private readonly status = byId('steer-status');
  private readonly error = byId('steer-error');
  private turnId: string | null = null;
  /** Message ids sent from this page to the open turn, and whether the turn applied them yet. */
  private sent = new Map<string, boolean>();

  constructor(private readonly api: Api) {
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.send();
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.form.requestSubmit();
      }
    });
  }

  /** Show the box for `state`'s turn (reset when another turn is opened). */
  render(state: TurnState): void {
    if (state.turnId !== this.turnId) {
      this.turnId = state.turnId;
      this.sent = new Map();
      this.input.value = '';
      this.status.textContent = '';
      this.error.hidden = true;
    }
    this.form.hidden = !OPEN_STATUSES.has(state.status);
    let changed = false;
    for (const id of state.appliedInputs) {
      if (this.sent.get(id) === false) {
        this.sent.set(id, true);
        changed = true;
      }
    }
    if (changed) this.status.textContent = this.summary();
  }

  private summary(): string {
    const waiting = [...this.sent.values()].filter((applied) => !applied).length;
    const applied = this.sent.size - waiting;
    if (waiting === 0) return applied === 1 ? 'Your message was given to the agent.' : `Your ${applied} messages were given to the agent.`;
    return `Message sent — the agent gets it before its next step (${waiting} waiting).`;
  }

  private async send(): Promise<void> {
    const turnId = this.turnId;
    const content = this.input.value.trim();
    this.error.hidden = true;
    if (!turnId) return;
    if (!content) return this.problem('Type a message for the agent first.');
    this.button.disabled = true;
    try {
      const queued = await this.api.sendMessage(turnId, content);
      if (turnId !== this.turnId) return;
      if (!this.sent.has(queued.message_id)) this.sent.set(queued.message_id, false);
      this.input.value = '';
      this.status.textContent = this.summary();
    } catch (err) {
      this.problem(err instanceof ApiError && err.code === 'turn_finished' ? 'This turn has already finished; start a new turn to continue.' : plainWords(err));
    } finally {
      this.button.disabled = false;
    }
  }

  private problem(text: string): void {
    this.error.textContent = text;
    this.error.hidden = false;
    this.input.focus();
  }
}
