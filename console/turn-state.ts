/**
 * Pure view-model of one turn, built by folding the turn's SSE events (the `data:` JSON of each
 * `StoredTurnEvent`, see src/runtime/events.ts) in order. No DOM here, so it is unit-testable.
 *
 * Exactly-once: every event carries `seq` (1, 2, 3… per turn, also the SSE `id:`). An event whose
 * seq is not above the last one applied is a duplicate (e.g. replayed after a reconnect) and is
 * ignored, so rows never appear twice however often the stream resumes.
 */

import { applyApprovalEvent, type ApprovalItem } from './approvals.js';

/** One tool call row: running label first, replaced by the completed label when it ends. */
export interface ToolItem {
  kind: 'tool';
  callId: string;
  name: string;
  label: string;
  state: 'running' | 'done' | 'error' | 'cancelled';
  /** The text the model saw as function_call_output (after completion). */
  output?: string;
  /** Latest `tool.progress` message (not output). */
  progress?: string;
  /** Output streamed so far by a running call (`tool.progress` with `data.kind: "output"`), newest {@link LIVE_OUTPUT_KEEP} characters. */
  liveOutput?: string;
}

/** Characters of live output a row keeps. */
export const LIVE_OUTPUT_KEEP = 8000;

/** One assistant message, streaming until `message.completed`. */
export interface MessageItem {
  kind: 'message';
  /** Stable key for rendering (seq of the first delta). */
  key: string;
  text: string;
  done: boolean;
}

/** The model's reasoning as it streams (`reasoning.delta`); not part of the answer, shown collapsed. */
export interface ReasoningItem {
  kind: 'reasoning';
  /** Stable key for rendering (seq of the first delta). */
  key: string;
  text: string;
  /** True once something else followed it (a message, a tool call, the end). */
  done: boolean;
}

/** Something about the model's answer that did not fail the turn (`model.warning`), shown as it came. */
export interface WarningItem {
  kind: 'warning';
  key: string;
  /** E.g. `tool_calls_ignored`. */
  code: string;
  message: string;
}

export type TimelineItem = ToolItem | MessageItem | ReasoningItem | WarningItem;

/** A todo item from a `plan.snapshot` presentation event. */
export interface PlanItem {
  id: string;
  content: string;
  status: string;
}

/** A file the turn attached (`presentation` event of type `attachment`). */
export interface AttachmentItem {
  attachmentId: string;
  name: string;
  mimeType: string;
  size: number;
  /** Download path (`/v1/turns/{id}/attachments/{attachment_id}`). */
  url: string;
}

export type TurnStatus = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

export interface TurnState {
  turnId: string;
  /** Highest seq applied (0 = none). */
  lastSeq: number;
  status: TurnStatus;
  model?: string;
  tools: string[];
  unavailable: { family: string; reason: string }[];
  timeline: TimelineItem[];
  /** Latest plan snapshot; null until the first one. */
  plan: PlanItem[] | null;
  /** Reply attachments, in the order they were made. */
  attachments: AttachmentItem[];
  /** Calls that asked for approval (approvals.ts), in request order. */
  approvals: ApprovalItem[];
  error: { code: string; message: string } | null;
  /** The question the agent asked with `clarify` (`presentation` of type `clarify`); null when none. */
  question: { question: string; choices: { label: string; description?: string }[] } | null;
  /** Steering messages the turn has added to its transcript (`input.applied`), by message id. */
  appliedInputs: string[];
  /**
   * Steering messages the turn will never apply (`input.not_applied`, stored just before the
   * terminal event), with the reason: the stop reason (e.g. `max_steps`), `failed` or `cancelled`.
   */
  notAppliedInputs: { messageId: string; reason: string }[];
  stopReason?: string;
  outputText?: string;
}

/** An event as received (loosely typed: the page must survive fields it does not know). */
export interface IncomingEvent {
  type: string;
  seq: number;
  [key: string]: unknown;
}

/** A fresh state; `status` is the turn's stored status when known (so a running turn reads "Running" before any event arrives). */
export function initialTurnState(turnId: string, status: TurnStatus = 'queued'): TurnState {
  return { turnId, lastSeq: 0, status, tools: [], unavailable: [], timeline: [], plan: null, attachments: [], approvals: [], error: null, question: null, appliedInputs: [], notAppliedInputs: [] };
}

/** True for the three events after which a turn's log never grows. */
export function isTerminal(type: string): boolean {
  return type === 'turn.completed' || type === 'turn.failed' || type === 'turn.cancelled';
}

/** Events of the model's output: after one of these (other than reasoning) the reasoning before it is done. */
const STREAMED_EVENTS = new Set(['reasoning.delta', 'message.delta', 'message.completed', 'tool.started', 'model.warning']);

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

export type { ApprovalItem };

/**
 * Apply `ev` to `state` in place. Returns false (and changes nothing) for a duplicate or
 * out-of-order event (seq ≤ lastSeq) or one without a numeric seq.
 */
export function applyEvent(state: TurnState, ev: IncomingEvent): boolean {
  if (typeof ev.seq !== 'number' || !Number.isFinite(ev.seq) || ev.seq <= state.lastSeq) return false;
  state.lastSeq = ev.seq;
  const last = state.timeline[state.timeline.length - 1];
  if (last?.kind === 'reasoning' && ev.type !== 'reasoning.delta' && STREAMED_EVENTS.has(ev.type)) last.done = true;
  switch (ev.type) {
    case 'turn.started':
      state.status = 'running';
      state.model = str(ev.model) || undefined;
      state.tools = Array.isArray(ev.tools) ? ev.tools.map(String) : [];
      state.unavailable = Array.isArray(ev.unavailable) ? (ev.unavailable as TurnState['unavailable']) : [];
      break;
    case 'reasoning.delta': {
      const last = state.timeline[state.timeline.length - 1];
      if (last && last.kind === 'reasoning' && !last.done) last.text += str(ev.text);
      else state.timeline.push({ kind: 'reasoning', key: `r${ev.seq}`, text: str(ev.text), done: false });
      break;
    }
    case 'model.warning':
      state.timeline.push({ kind: 'warning', key: `w${ev.seq}`, code: str(ev.code, 'warning'), message: str(ev.message) });
      break;
    case 'message.delta': {
      const last = state.timeline[state.timeline.length - 1];
      if (last && last.kind === 'message' && !last.done) last.text += str(ev.text);
      else state.timeline.push({ kind: 'message', key: `m${ev.seq}`, text: str(ev.text), done: false });
      break;
    }
    case 'message.completed': {
      const last = state.timeline[state.timeline.length - 1];
      if (last && last.kind === 'message' && !last.done) {
        last.text = str(ev.text, last.text);
        last.done = true;
      } else {
        state.timeline.push({ kind: 'message', key: `m${ev.seq}`, text: str(ev.text), done: true });
      }
      break;
    }
    case 'tool.started': {
      const label = typeof ev.label === 'string' ? ev.label : null;
      if (label !== null) {
        state.timeline.push({ kind: 'tool', callId: str(ev.call_id), name: str(ev.name), label, state: 'running' });
      }
      break;
    }
    case 'tool.progress': {
      const row = findTool(state, str(ev.call_id));
      const data = (ev.data ?? {}) as { kind?: unknown; skipped_chars?: unknown };
      if (row && data.kind === 'output') {
        const skipped = typeof data.skipped_chars === 'number' && data.skipped_chars > 0 ? `[… ${data.skipped_chars} characters not shown …]\n` : '';
        row.liveOutput = ((row.liveOutput ?? '') + skipped + str(ev.message)).slice(-LIVE_OUTPUT_KEEP);
      } else if (row) {
        row.progress = str(ev.message);
      }
      break;
    }
    case 'tool.completed': {
      const label = typeof ev.label === 'string' ? ev.label : null;
      let row = findTool(state, str(ev.call_id));
      if (!row && label !== null) {
        row = { kind: 'tool', callId: str(ev.call_id), name: str(ev.name), label, state: 'running' };
        state.timeline.push(row);
      }
      if (row) {
        if (label !== null) row.label = label;
        row.state = ev.is_error === true ? 'error' : 'done';
        row.output = str(ev.output);
        row.progress = undefined;
        row.liveOutput = undefined;
      }
      break;
    }
    case 'presentation': {
      const inner = ev.event as { type?: unknown; items?: unknown; todos?: unknown; [k: string]: unknown } | undefined;
      if (inner && inner.type === 'attachment' && typeof inner.url === 'string' && inner.url.startsWith('/v1/turns/')) {
        const attachmentId = str(inner.attachment_id);
        if (!state.attachments.some((a) => a.attachmentId === attachmentId)) {
          state.attachments.push({ attachmentId, name: str(inner.name, 'attachment'), mimeType: str(inner.mime_type), size: typeof inner.size === 'number' ? inner.size : 0, url: inner.url });
        }
      }
      if (inner && inner.type === 'clarify') {
        const choices = Array.isArray(inner.choices) ? (inner.choices as { label?: unknown; description?: unknown }[]) : [];
        state.question = {
          question: str(inner.question),
          choices: choices.map((c) => ({ label: str(c?.label), ...(typeof c?.description === 'string' ? { description: c.description } : {}) })),
        };
      }
      if (inner && inner.type === 'plan.snapshot') {
        const list = Array.isArray(inner.items) ? inner.items : Array.isArray(inner.todos) ? inner.todos : [];
        state.plan = list.map((raw, i) => {
          const item = (raw ?? {}) as Record<string, unknown>;
          return { id: str(item.id, String(i + 1)), content: str(item.content), status: str(item.status, 'pending') };
        });
      }
      break;
    }
    case 'input.applied':
      if (typeof ev.message_id === 'string') state.appliedInputs.push(ev.message_id);
      break;
    case 'input.not_applied':
      if (typeof ev.message_id === 'string') state.notAppliedInputs.push({ messageId: ev.message_id, reason: str(ev.reason, 'ended') });
      break;
    case 'approval.requested':
    case 'approval.resolved':
      applyApprovalEvent(state.approvals, ev);
      if (ev.type === 'approval.requested') state.status = 'waiting';
      break;
    case 'turn.resumed':
      state.status = 'running';
      break;
    case 'turn.completed':
      state.status = 'completed';
      state.stopReason = str(ev.stop_reason);
      state.outputText = str(ev.output_text);
      if (state.outputText && !state.timeline.some((item) => item.kind === 'message')) {
        state.timeline.push({ kind: 'message', key: `m${ev.seq}`, text: state.outputText, done: true });
      }
      closeOpenItems(state, 'cancelled');
      break;
    case 'turn.failed': {
      state.status = 'failed';
      const e = (ev.error ?? {}) as { code?: unknown; message?: unknown };
      state.error = { code: str(e.code, 'error'), message: str(e.message, 'unknown error') };
      closeOpenItems(state, 'cancelled');
      break;
    }
    case 'turn.cancelled': {
      state.status = 'cancelled';
      const calls = Array.isArray(ev.calls) ? (ev.calls as { call_id?: unknown; state?: unknown }[]) : [];
      for (const call of calls) {
        const row = findTool(state, str(call.call_id));
        if (row && row.state === 'running') row.state = call.state === 'completed' ? 'done' : 'cancelled';
      }
      closeOpenItems(state, 'cancelled');
      break;
    }
    default:
      // Unknown event types are counted (seq advances) but not shown.
      break;
  }
  return true;
}

function findTool(state: TurnState, callId: string): ToolItem | undefined {
  for (const item of state.timeline) if (item.kind === 'tool' && item.callId === callId) return item;
  return undefined;
}

/** After a terminal event nothing is running any more. */
function closeOpenItems(state: TurnState, toolState: 'cancelled'): void {
  for (const item of state.timeline) {
    if (item.kind === 'tool' && item.state === 'running') item.state = toolState;
    if (item.kind === 'message' || item.kind === 'reasoning') item.done = true;
  }
}
