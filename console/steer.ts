/**
 * The steering box of the open turn: a text field that sends a message into a queued, running or
 * waiting turn (POST /v1/turns/{id}/messages). The message goes into the turn's transcript before
 * its next model request; the box says so when the turn's stream shows `input.applied` for it, and
 * says which of this page's messages the agent never got, and why, when the stream shows
 * `input.not_applied` for them (the turn ended first: step limit, failure, cancel). The form is
 * hidden while no unfinished turn is open; its status line stays visible after the turn ended.
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
  private readonly ownerNote = byId('owner-note');
  private turnId: string | null = null;
  /** Messages sent from this page to the open turn, by message id, in send order. */
  private sent = new Map<string, SentMessage>();

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

  /**
   * Show the box for `state`'s turn (reset when another turn is opened). `owner` is the note of
   * console/owner.ts for a turn a background job or workflow drives: then the box stays hidden and
   * the note is shown while the turn is open.
   */
  render(state: TurnState, owner: string | null = null): void {
    if (state.turnId !== this.turnId) {
      this.turnId = state.turnId;
      this.sent = new Map();
      this.input.value = '';
      this.status.textContent = '';
      this.error.hidden = true;
    }
    const open = OPEN_STATUSES.has(state.status);
    this.form.hidden = !open || owner !== null;
    this.ownerNote.textContent = owner ?? '';
    this.ownerNote.hidden = !open || owner === null;
    let changed = false;
    for (const id of state.appliedInputs) {
      const m = this.sent.get(id);
      if (m && m.fate === 'waiting') {
        m.fate = 'applied';
        changed = true;
      }
    }
    for (const { messageId, reason } of state.notAppliedInputs) {
      const m = this.sent.get(messageId);
      if (m && m.fate === 'waiting') {
        m.fate = 'not_applied';
        m.reason = reason;
        changed = true;
      }
    }
    if (changed) this.status.textContent = steerSummary([...this.sent.values()]);
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
      if (!this.sent.has(queued.message_id)) this.sent.set(queued.message_id, { content, fate: 'waiting' });
      this.input.value = '';
      this.status.textContent = steerSummary([...this.sent.values()]);
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

/** A message this page sent: its text, and what the turn did with it so far. */
export interface SentMessage {
  content: string;
  fate: 'waiting' | 'applied' | 'not_applied';
  /** For `not_applied`: the turn's stop reason (e.g. `max_steps`), `failed` or `cancelled`. */
  reason?: string;
}

/** Why a message was not given, in plain words, for an `input.not_applied` reason. */
export function notAppliedWhy(reason: string): string {
  switch (reason) {
    case 'max_steps':
      return 'the turn stopped at its step limit first';
    case 'failed':
      return 'the turn failed first';
    case 'cancelled':
      return 'the turn was cancelled first';
    case 'terminated':
      return 'a tool ended the turn first';
    case 'stop':
      return 'the agent finished its answer first';
    default:
      return `the turn ended first (${reason})`;
  }
}

const quote = (text: string): string => `"${text.length > 60 ? `${text.slice(0, 59)}…` : text}"`;

/**
 * The status line for `sent` (in send order): the messages the agent never got, quoted, with why
 * and what to do; otherwise how many were given or are still waiting.
 */
export function steerSummary(sent: SentMessage[]): string {
  const dropped = sent.filter((m) => m.fate === 'not_applied');
  const waiting = sent.filter((m) => m.fate === 'waiting').length;
  const applied = sent.filter((m) => m.fate === 'applied').length;
  if (dropped.length > 0) {
    const whys = [...new Set(dropped.map((m) => notAppliedWhy(m.reason ?? '')))].join('; ');
    const which = dropped.map((m) => quote(m.content)).join(', ');
    const given = applied > 0 ? ` (${applied} other ${applied === 1 ? 'message was' : 'messages were'} given to the agent.)` : '';
    const one = dropped.length === 1;
    // A turn interrupted by a double-text passes its unapplied messages to the interrupting turn.
    const cancelled = dropped.some((m) => m.reason === 'cancelled')
      ? ` If a new turn interrupted this one, that turn got ${one ? 'it' : 'them'}; otherwise send ${one ? 'it' : 'them'} again in a new turn.`
      : ` Send ${one ? 'it' : 'them'} again in a new turn to continue.`;
    return `Not given to the agent: ${which} — ${whys}.${cancelled}${given}`;
  }
  if (waiting === 0) return applied === 1 ? 'Your message was given to the agent.' : `Your ${applied} messages were given to the agent.`;
  return `Message sent — the agent gets it before its next step (${waiting} waiting).`;
}
