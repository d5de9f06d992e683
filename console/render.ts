/**
 * DOM rendering of a {@link TurnState}: keyed, incremental (rows are created once and updated in
 * place, so an expanded result stays expanded and focus is not lost while events stream in).
 * All text goes through `textContent` — model and tool output is never parsed as HTML.
 */
import type { AttachmentItem, PlanItem, TimelineItem, ToolItem, TurnState } from './turn-state.js';
import { turnErrorInPlainWords } from './api.js';
import type { ConnectionState } from './stream.js';
import { escapeUnsafeText } from './display-text.js';

const STATUS_WORDS: Record<TurnState['status'], string> = {
  queued: 'Queued',
  running: 'Running…',
  waiting: 'Waiting for your approval',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const TOOL_STATE_WORDS: Record<ToolItem['state'], string> = {
  running: 'Running',
  done: 'Done',
  error: 'Failed',
  cancelled: 'Cancelled',
};

const PLAN_MARKS: Record<string, { mark: string; word: string }> = {
  pending: { mark: '[ ]', word: 'to do' },
  in_progress: { mark: '[>]', word: 'in progress' },
  completed: { mark: '[x]', word: 'done' },
  cancelled: { mark: '[-]', word: 'cancelled' },
};

const CONNECTION_WORDS: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  ended: 'Stream finished',
  lost: 'Connection lost — reopen the turn from Recent turns to try again.',
};

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`console page is missing #${id}`);
  return node as T;
}

/** Renders one turn into the #turn section. Create one per opened turn (it resets the section). */
export class TurnView {
  private readonly rows = new Map<string, HTMLLIElement>();
  private readonly section = byId('turn');
  private readonly timeline = byId<HTMLOListElement>('timeline');
  private readonly plan = byId<HTMLUListElement>('plan');
  private readonly cancel = byId<HTMLButtonElement>('cancel');

  /**
   * @param downloadHref the link for an attachment's URL (adds the turn's stream token when the
   *   server needs auth: a plain link cannot send Authorization).
   */
  constructor(turnId: string, private readonly downloadHref: (url: string) => string = (u) => u) {
    this.section.hidden = false;
    this.section.dataset.turnId = turnId;
    this.section.dataset.lastSeq = '0';
    this.section.dataset.status = 'queued';
    byId('turn-id').textContent = `Turn ${turnId}`;
    this.timeline.replaceChildren();
    this.plan.replaceChildren();
    byId('plan-section').hidden = true;
    byId('attachments').replaceChildren();
    byId('attachments-section').hidden = true;
    byId('turn-error').hidden = true;
    byId('unavailable').hidden = true;
    this.setConnection('connecting');
  }

  /** Show the connection state; "Reconnecting…" is styled to stand out. */
  setConnection(state: ConnectionState): void {
    const node = byId('connection');
    node.textContent = CONNECTION_WORDS[state];
    node.className = `connection ${state}`;
    this.section.dataset.connection = state;
  }

  /** Show a problem (plain words) in the turn's alert area. */
  showError(text: string): void {
    const node = byId('turn-error');
    node.textContent = text;
    node.hidden = false;
  }

  render(state: TurnState): void {
    this.section.dataset.lastSeq = String(state.lastSeq);
    this.section.dataset.status = state.status;
    byId('turn-status').textContent = STATUS_WORDS[state.status];
    this.cancel.disabled = !(state.status === 'queued' || state.status === 'running' || state.status === 'waiting');
    const unavailable = byId('unavailable');
    // Families merely not asked for are not news; show the ones that could not be provided.
    const missing = state.unavailable.filter((u) => !/not enabled for this turn/i.test(u.reason));
    if (missing.length) {
      unavailable.textContent = `Not available this turn: ${missing.map((u) => `${u.family} (${u.reason})`).join('; ')}`;
      unavailable.hidden = false;
    }
    for (const item of state.timeline) this.renderItem(item);
    if (state.plan) this.renderPlan(state.plan);
    if (state.attachments.length) this.renderAttachments(state.attachments);
    if (state.error) this.showError(turnErrorInPlainWords(state.error));
    else if (state.status === 'completed' && state.stopReason && state.stopReason !== 'stop' && state.stopReason !== 'clarify') {
      this.showError(`The turn ended early (${state.stopReason.replace(/_/g, ' ')}).`);
    }
  }

  private renderItem(item: TimelineItem): void {
    const key = item.kind === 'tool' ? `t:${item.callId}` : item.key;
    let li = this.rows.get(key);
    if (!li) {
      li = item.kind === 'tool' ? this.createToolRow(item) : item.kind === 'reasoning' ? this.createReasoningRow() : el('li', item.kind);
      this.rows.set(key, li);
      this.timeline.append(li);
    }
    if (item.kind === 'reasoning') {
      // Collapsed and dimmed: what the model thought on the way, not its answer.
      const text = li.querySelector<HTMLElement>('.text')!;
      if (text.textContent !== item.text) text.textContent = item.text;
      li.querySelector('summary')!.textContent = item.done ? 'Reasoning' : 'Reasoning…';
      li.dataset.done = String(item.done);
      return;
    }
    if (item.kind === 'warning') {
      li.setAttribute('role', 'note');
      li.dataset.code = item.code;
      const text = `Model warning: ${item.message || item.code.replace(/_/g, ' ')}`;
      if (li.textContent !== text) li.textContent = text;
      return;
    }
    if (item.kind === 'message') {
      if (li.textContent !== item.text) li.textContent = item.text;
      li.dataset.done = String(item.done);
      return;
    }
    li.className = `tool ${item.state}`;
    li.dataset.state = item.state;
    li.querySelector('.state')!.textContent = TOOL_STATE_WORDS[item.state];
    li.querySelector('.label')!.textContent = item.label;
    const progress = li.querySelector<HTMLElement>('.progress')!;
    progress.textContent = item.progress ?? '';
    progress.hidden = !item.progress;
    const out = li.querySelector<HTMLElement>('.output')!;
    out.textContent = item.output ?? (item.state === 'running' ? 'No result yet.' : 'No result.');
    // While a command runs, its newest output shows under the label without expanding the row.
    const live = li.querySelector<HTMLElement>('.live')!;
    const showLive = item.state === 'running' && !!item.liveOutput;
    live.hidden = !showLive;
    if (showLive && live.textContent !== item.liveOutput) {
      live.textContent = item.liveOutput!;
      live.scrollTop = live.scrollHeight;
    }
  }

  private createReasoningRow(): HTMLLIElement {
    const li = el('li', 'reasoning');
    const details = el('details');
    const text = el('pre', 'text');
    text.setAttribute('aria-label', 'Reasoning of the model');
    details.append(el('summary'), text);
    li.append(details);
    return li;
  }

  private createToolRow(item: ToolItem): HTMLLIElement {
    const li = el('li', 'tool');
    li.dataset.callId = item.callId;
    li.dataset.tool = item.name;
    const details = el('details');
    const summary = el('summary');
    summary.append(el('span', 'state'), el('span', 'label'));
    const progress = el('p', 'progress');
    const out = el('pre', 'output');
    out.setAttribute('aria-label', `Result of ${item.name}`);
    details.append(summary, progress, out);
    const live = el('pre', 'live');
    live.setAttribute('aria-label', `Output so far of ${item.name}`);
    live.hidden = true;
    li.append(details, live);
    return li;
  }

  private renderAttachments(items: AttachmentItem[]): void {
    const list = byId<HTMLUListElement>('attachments');
    if (list.childElementCount === items.length) return;
    byId('attachments-section').hidden = false;
    list.replaceChildren(
      ...items.map((a) => {
        const li = el('li');
        li.dataset.attachmentId = a.attachmentId;
        const link = el('a', 'download', a.name);
        link.href = this.downloadHref(a.url);
        link.download = a.name;
        link.type = a.mimeType;
        li.append(link, el('span', 'hint', ` (${formatBytes(a.size)})`));
        return li;
      }),
    );
  }

  private renderPlan(items: PlanItem[]): void {
    byId('plan-section').hidden = false;
    const rows = items.map((item) => {
      const look = PLAN_MARKS[item.status] ?? { mark: '[?]', word: item.status };
      const li = el('li', item.status);
      li.dataset.status = item.status;
      const mark = el('span', 'mark', look.mark);
      mark.setAttribute('aria-hidden', 'true');
      // The model wrote the item: shown with control, separator, invisible and bidi characters
      // escaped (console/display-text.ts), as the approval panel shows a call's arguments.
      li.append(mark, el('span', 'text', escapeUnsafeText(item.content)), el('span', 'sr', ` (${look.word})`));
      return li;
    });
    this.plan.replaceChildren(...rows);
  }
}
