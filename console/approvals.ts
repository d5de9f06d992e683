/**
 * Tool approvals in the console (README "Tool approvals"): the view-model part (folding
 * `approval.requested` / `approval.resolved` into the list of calls waiting for a decision) and
 * the panel that shows each with its label and arguments and Approve / Reject (with a reason)
 * buttons. Deciding calls POST /v1/turns/{id}/approvals; the stream then brings
 * `approval.resolved` and the turn continues. All text goes through `textContent`; arguments are
 * shown with control and bidi characters escaped (display-text.ts).
 */
import { displayJson } from './display-text.js';

/** One call waiting for (or given) a decision. */
export interface ApprovalItem {
  callId: string;
  name: string;
  label: string | null;
  arguments: unknown;
  expiresAt: string;
  state: 'pending' | 'approved' | 'rejected';
  reason?: string;
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/** Apply an approval event to `items` (in place); false for other event types. */
export function applyApprovalEvent(items: ApprovalItem[], ev: { type: string; [key: string]: unknown }): boolean {
  if (ev.type === 'approval.requested') {
    const callId = str(ev.call_id);
    if (!items.some((a) => a.callId === callId)) {
      items.push({ callId, name: str(ev.name), label: typeof ev.label === 'string' ? ev.label : null, arguments: ev.arguments, expiresAt: str(ev.expires_at), state: 'pending' });
    }
    return true;
  }
  if (ev.type === 'approval.resolved') {
    const item = items.find((a) => a.callId === str(ev.call_id));
    if (item) {
      item.state = ev.decision === 'approve' ? 'approved' : 'rejected';
      if (typeof ev.reason === 'string') item.reason = ev.reason;
    }
    return true;
  }
  return false;
}

/** What a click asks for. */
export type DecideFn = (callId: string, decision: 'approve' | 'reject', reason: string) => Promise<void>;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * The #approvals panel: one row per pending call (rows are kept while the page lives, so a
 * half-typed reason survives re-renders); rows of decided calls go away. Hidden when empty.
 */
export class ApprovalsPanel {
  private readonly rows = new Map<string, HTMLLIElement>();

  constructor(
    private readonly section: HTMLElement,
    private readonly list: HTMLUListElement,
    private readonly decide: DecideFn,
    private readonly explain: (err: unknown) => string,
  ) {
    list.replaceChildren();
    section.hidden = true;
  }

  /** Show the calls of `items` still pending; `open` is false once the turn finished. */
  render(items: readonly ApprovalItem[], open: boolean): void {
    const pending = open ? items.filter((a) => a.state === 'pending') : [];
    for (const [callId, row] of this.rows) {
      if (!pending.some((a) => a.callId === callId)) {
        row.remove();
        this.rows.delete(callId);
      }
    }
    for (const item of pending) if (!this.rows.has(item.callId)) this.add(item);
    this.section.hidden = pending.length === 0;
  }

  private add(item: ApprovalItem): void {
    const what = item.label ?? item.name;
    const li = el('li', 'approval');
    li.dataset.callId = item.callId;
    li.append(el('p', 'what', what), el('p', 'hint', `Tool ${item.name} wants to run with:`));
    const args = el('pre', 'arguments', displayJson(item.arguments));
    args.setAttribute('aria-label', `Arguments of ${what}`);
    const reasonId = `reason-${item.callId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    const label = el('label', undefined, 'Reason (shown to the agent if you reject)');
    label.htmlFor = reasonId;
    const reason = el('input');
    reason.id = reasonId;
    reason.autocomplete = 'off';
    const approve = el('button', 'approve', 'Approve');
    approve.type = 'button';
    approve.setAttribute('aria-label', `Approve: ${what}`);
    const reject = el('button', 'reject', 'Reject');
    reject.type = 'button';
    reject.setAttribute('aria-label', `Reject: ${what}`);
    const problem = el('p', 'error');
    problem.setAttribute('role', 'alert');
    problem.hidden = true;
    const act = async (decision: 'approve' | 'reject') => {
      approve.disabled = reject.disabled = true;
      problem.hidden = true;
      try {
        await this.decide(item.callId, decision, reason.value.trim());
      } catch (err) {
        problem.textContent = this.explain(err);
        problem.hidden = false;
        approve.disabled = reject.disabled = false;
      }
    };
    approve.addEventListener('click', () => void act('approve'));
    reject.addEventListener('click', () => void act('reject'));
    const buttons = el('div', 'actions');
    buttons.append(approve, reject);
    li.append(args, label, reason, buttons, problem);
    this.rows.set(item.callId, li);
    this.list.append(li);
  }
}
