/**
 * The open turn's question to the user (a `clarify` call: `presentation` event of type
 * `clarify`): the question, its suggested answers as buttons, and an answer box. Answering starts
 * the next turn of the conversation (POST /v1/turns with `previous_turn_id` = this turn, same
 * agent, the tool families ticked in the start form) and opens it.
 *
 * The model wrote the question and the choices; events carry them as written, and they are shown
 * here with control, separator, invisible and bidi characters escaped as `\uXXXX`
 * (console/display-text.ts; the question keeps its line breaks and tabs), as the approval panel
 * shows a call's arguments — a U+202E in a choice must not make "delete all" read as something
 * else. Picking a choice puts that shown text into the answer box, so what is sent is what the
 * person read.
 */
import { plainWords, type Api, type Turn } from './api.js';
import { escapeUnsafeLines, escapeUnsafeText } from './display-text.js';
import type { TurnState } from './turn-state.js';

const byId = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

export class QuestionBox {
  private readonly section = byId('question-section');
  private readonly text = byId('question');
  private readonly choices = byId<HTMLUListElement>('question-choices');
  private readonly form = byId<HTMLFormElement>('answer-form');
  private readonly input = byId<HTMLTextAreaElement>('answer-input');
  private readonly button = byId<HTMLButtonElement>('answer-send');
  private readonly error = byId('answer-error');
  private readonly note = byId('answer-note');
  private turn: Turn | null = null;
  private shown = '';

  /**
   * @param families the tool families to continue with (the start form's ticked boxes)
   * @param opened called with the new turn once the answer started it
   */
  constructor(
    private readonly api: Api,
    private readonly families: () => string[],
    private readonly opened: (turn: Turn) => void,
  ) {
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.answer();
    });
  }

  /** Render `state`'s question for `turn` (hidden when it has none). */
  render(turn: Turn, state: TurnState): void {
    if (this.turn?.id !== turn.id) {
      this.turn = turn;
      this.shown = '';
      this.input.value = '';
      this.error.hidden = true;
    }
    const q = state.question;
    this.section.hidden = !q;
    if (!q) return;
    const key = JSON.stringify(q);
    if (key !== this.shown) {
      this.shown = key;
      this.text.textContent = escapeUnsafeLines(q.question);
      this.choices.replaceChildren(
        ...q.choices.map((c) => {
          const label = escapeUnsafeText(c.label);
          const description = c.description ? escapeUnsafeText(c.description) : undefined;
          const li = document.createElement('li');
          const b = document.createElement('button');
          b.type = 'button';
          b.textContent = label;
          if (description) b.title = description;
          b.addEventListener('click', () => {
            this.input.value = label;
            this.input.focus();
          });
          li.append(b);
          if (description) li.append(document.createTextNode(` ${description}`));
          return li;
        }),
      );
    }
    // A background job's question is answered through the job (its next turn), not by a new
    // turn continuing this one, which would leave the job waiting.
    const jobNote = jobQuestionNote(turn);
    this.note.textContent = jobNote ?? '';
    this.note.hidden = jobNote === null;
    // The answer is the next turn, so it can be sent once this one has finished.
    this.form.hidden = jobNote !== null || state.status !== 'completed';
  }

  private async answer(): Promise<void> {
    const turn = this.turn;
    const input = this.input.value.trim();
    this.error.hidden = true;
    if (!turn) return;
    if (!input) {
      this.error.textContent = 'Type your answer first (or pick one of the suggestions).';
      this.error.hidden = false;
      this.input.focus();
      return;
    }
    this.button.disabled = true;
    try {
      const next = await this.api.createTurn({
        input,
        tools: this.families(),
        previous_turn_id: turn.id,
        ...(turn.agent_id ? { agent_id: turn.agent_id } : {}),
        metadata: { title: input.slice(0, 120) },
      });
      this.opened(next);
    } catch (err) {
      this.error.textContent = plainWords(err);
      this.error.hidden = false;
    } finally {
      this.button.disabled = false;
    }
  }
}

/** For a background job's turn: where its question is answered instead of here; null otherwise. */
export function jobQuestionNote(turn: Pick<Turn, 'kind' | 'origin'>): string | null {
  if (turn.kind !== 'background_job') return null;
  const job = typeof turn.origin?.job_id === 'string' ? ` ${turn.origin.job_id}` : '';
  return `This question is background job${job}'s: answer it in the Background jobs panel (POST /v1/jobs/{id}/messages), which resumes the job.`;
}
