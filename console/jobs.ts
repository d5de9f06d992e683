/**
 * The console's background jobs panel: lists the jobs of the agent named in Settings (GET
 * /v1/jobs, newest first, with status and age), opens one and follows it live over EventSource
 * (GET /v1/jobs/{id}/events: the job's moves and activity across all its turns, resumed with
 * Last-Event-ID by the browser, or with `?after=` and a fresh stream token after the stream gave
 * up), shows its question while it waits, shows the calls its turn waits on a person to decide
 * (status waiting_on_approval) with Approve / Reject buttons (POST /v1/turns/{turn_id}/approvals),
 * sends it a message (POST /v1/jobs/{id}/messages: an answer, a steering message, or one kept
 * until it starts) and stops it (POST /v1/jobs/{id}/stop).
 * The open job is kept in the URL hash (`#job=<id>`). The job's question (model-written) is shown
 * with control, separator, invisible and bidi characters escaped (console/display-text.ts).
 */
import { escapeUnsafeLines } from './display-text.js';

/** A job as the API returns it (fields the panel reads). */
export interface Job {
  id: string;
  title: string;
  status: 'queued' | 'running' | 'waiting_on_user' | 'waiting_on_approval' | 'succeeded' | 'failed' | 'stopped';
  question: string | null;
  /** While waiting_on_approval: the calls a person must decide. */
  pending_approvals: JobApproval[];
  output_text: string | null;
  error: { code: string; summary: string; retryable: boolean } | null;
  created_at: string;
  links: { events: string };
}

/** A call of the job's turn waiting for a decision. */
export interface JobApproval {
  turn_id: string;
  call_id: string;
  name: string;
  label: string | null;
  expires_at: string;
}

/** Every SSE `event:` a job stream sends (src/jobs/events.ts). */
export const JOB_EVENT_TYPES = [
  'job.created', 'job.started', 'job.message', 'job.message_applied', 'job.activity', 'job.waiting_on_user',
  'job.waiting_on_approval', 'job.resumed', 'job.succeeded', 'job.failed', 'job.stopped',
] as const;
const TERMINAL = new Set(['job.succeeded', 'job.failed', 'job.stopped']);

/** The status line of a job, in words. */
export function jobStatusText(job: Pick<Job, 'status' | 'error'>): string {
  switch (job.status) {
    case 'queued':
      return 'Queued (waiting for a free slot)';
    case 'running':
      return 'Running…';
    case 'waiting_on_user':
      return 'Waiting for your answer';
    case 'waiting_on_approval':
      return 'Waiting for your approval';
    case 'succeeded':
      return 'Succeeded';
    case 'failed':
      return `Failed: ${job.error?.summary ?? 'unknown error'}`;
    default:
      return 'Stopped';
  }
}

export interface JobsPanelOptions {
  token: () => string;
  /** The agent whose jobs are listed (Settings; default `default`). */
  agentId: () => string;
  /** "just now", "5 min ago", … */
  age: (iso: string) => string;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

export function initJobs(o: JobsPanelOptions): { refresh(): Promise<void> } {
  const list = $<HTMLUListElement>('jobs');
  const listError = $('jobs-error');
  const view = $('job');
  const activity = $<HTMLOListElement>('job-activity');
  const statusLine = $('job-status');
  const connection = $('job-connection');
  const question = $('job-question');
  const approvals = $<HTMLUListElement>('job-approvals');
  const stopButton = $<HTMLButtonElement>('job-stop');
  const form = $<HTMLFormElement>('job-message-form');
  const messageBox = $<HTMLTextAreaElement>('job-message');
  const viewError = $('job-error');
  let open: { id: string; source: EventSource | null; lastSeq: number; restarts: number } | null = null;

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = o.token().trim();
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new Error('Could not reach the service. Check that it is running and try again.');
    }
    const json = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
    if (res.status === 401) throw new Error('The service needs an API token. Open Settings, enter your token, and try again.');
    if (!res.ok) throw new Error(json?.error?.message ?? `The service answered ${res.status}.`);
    return json as T;
  }

  async function decide(a: JobApproval, decision: 'approve' | 'reject', li: HTMLLIElement): Promise<void> {
    viewError.hidden = true;
    for (const b of li.querySelectorAll('button')) b.disabled = true;
    try {
      await call('POST', `/v1/turns/${encodeURIComponent(a.turn_id)}/approvals`, { call_id: a.call_id, decision });
      li.dataset.state = decision === 'approve' ? 'approved' : 'rejected';
    } catch (err) {
      viewError.textContent = (err as Error).message;
      viewError.hidden = false;
      for (const b of li.querySelectorAll('button')) b.disabled = false;
    }
  }

  function showApprovals(list: JobApproval[]): void {
    approvals.hidden = list.length === 0;
    approvals.replaceChildren(
      ...list.map((a) => {
        const li = document.createElement('li');
        li.dataset.callId = a.call_id;
        const what = Object.assign(document.createElement('span'), { className: 'what', textContent: a.label ? `${a.name}: ${a.label}` : a.name });
        const approve = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Approve' });
        const reject = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Reject' });
        approve.setAttribute('aria-label', `Approve ${a.label ?? a.name}`);
        reject.setAttribute('aria-label', `Reject ${a.label ?? a.name}`);
        approve.addEventListener('click', () => void decide(a, 'approve', li));
        reject.addEventListener('click', () => void decide(a, 'reject', li));
        li.append(what, approve, reject);
        return li;
      }),
    );
  }

  function showStatus(job: Pick<Job, 'status' | 'error' | 'question'> & { pending_approvals?: JobApproval[] }): void {
    statusLine.textContent = jobStatusText(job);
    view.dataset.status = job.status;
    showApprovals(job.status === 'waiting_on_approval' ? (job.pending_approvals ?? []) : []);
    const live = job.status === 'queued' || job.status === 'running' || job.status === 'waiting_on_user' || job.status === 'waiting_on_approval';
    stopButton.disabled = !live;
    form.hidden = !live;
    question.hidden = job.status !== 'waiting_on_user' || !job.question;
    question.textContent = job.question ? `The job asks: ${escapeUnsafeLines(job.question)}` : '';
    messageBox.placeholder =
      job.status === 'waiting_on_user' ? 'Your answer'
      : job.status === 'queued' ? 'Delivered when the job starts'
      : job.status === 'waiting_on_approval' ? 'Delivered once the calls are decided'
      : 'Steer the running job';
  }

  function row(kind: string, text: string): void {
    const li = document.createElement('li');
    li.className = kind;
    li.textContent = text;
    activity.append(li);
  }

  function apply(type: string, data: Record<string, any>): void {
    switch (type) {
      case 'job.created':
        row('note', `Created “${data.title}”`);
        break;
      case 'job.started':
        row('note', data.attempt === 1 ? 'Started' : `Resumed (start ${data.attempt})`);
        showStatus({ status: 'running', error: null, question: null });
        break;
      case 'job.message':
        row('note you', `You: ${data.message}`);
        break;
      case 'job.message_applied':
        row('note', 'The job got your message');
        break;
      case 'job.activity':
        if (data.kind === 'tool') row(`tool ${data.is_error ? 'error' : 'done'}`, `${data.is_error ? '✗' : '✓'} ${data.label ?? 'tool call'}`);
        else row('message', data.text ?? '');
        break;
      case 'job.waiting_on_user':
        row('note', `Asked: ${escapeUnsafeLines(String(data.question ?? ''))}`);
        showStatus({ status: 'waiting_on_user', error: null, question: data.question });
        break;
      case 'job.waiting_on_approval':
        row('note', `Waiting for your approval: ${(data.approvals as JobApproval[]).map((a) => a.label ?? a.name).join('; ')}`);
        showStatus({ status: 'waiting_on_approval', error: null, question: null, pending_approvals: data.approvals });
        break;
      case 'job.resumed':
        row('note', 'Decided; running again');
        showStatus({ status: 'running', error: null, question: null });
        break;
      case 'job.succeeded':
        showStatus({ status: 'succeeded', error: null, question: null });
        break;
      case 'job.failed':
        row('note error', `Failed: ${data.error.summary}`);
        showStatus({ status: 'failed', error: data.error, question: null });
        break;
      case 'job.stopped':
        showStatus({ status: 'stopped', error: null, question: null });
        break;
    }
  }

  function connect(url: string): void {
    if (!open) return;
    const state = open;
    const u = new URL(url, location.href);
    if (state.lastSeq > 0) u.searchParams.set('after', String(state.lastSeq));
    const source = new EventSource(u.pathname + u.search);
    state.source = source;
    connection.textContent = 'Connecting…';
    source.onopen = () => {
      connection.textContent = 'Live';
      connection.classList.remove('reconnecting');
    };
    for (const type of JOB_EVENT_TYPES) {
      source.addEventListener(type, (e) => {
        const ev = e as MessageEvent<string>;
        const seq = Number(ev.lastEventId);
        if (open !== state || !(seq > state.lastSeq)) return; // a duplicate after a reconnect
        state.lastSeq = seq;
        state.restarts = 0;
        apply(type, JSON.parse(ev.data) as Record<string, any>);
        if (TERMINAL.has(type)) {
          source.close();
          connection.textContent = '';
          void refresh();
        }
      });
    }
    source.onerror = () => {
      if (open !== state) return;
      connection.textContent = 'Reconnecting…';
      connection.classList.add('reconnecting');
      if (source.readyState !== EventSource.CLOSED) return; // the browser retries with Last-Event-ID
      if (state.restarts++ >= 6) {
        connection.textContent = 'Connection lost. Reopen the job to try again.';
        return;
      }
      setTimeout(() => {
        void call<Job>('GET', `/v1/jobs/${encodeURIComponent(state.id)}`).then((j) => open === state && connect(j.links.events), () => undefined);
      }, 1000);
    };
  }

  async function show(id: string): Promise<void> {
    open?.source?.close();
    viewError.hidden = true;
    let job: Job;
    try {
      job = await call<Job>('GET', `/v1/jobs/${encodeURIComponent(id)}`);
    } catch (err) {
      listError.textContent = (err as Error).message;
      listError.hidden = false;
      return;
    }
    open = { id, source: null, lastSeq: 0, restarts: 0 };
    view.hidden = false;
    view.dataset.jobId = id;
    $('job-heading').textContent = `Job: ${job.title}`;
    $('job-id').textContent = `Job ${job.id}`;
    activity.replaceChildren();
    showStatus(job);
    connect(job.links.events);
    if (location.hash !== `#job=${id}`) history.replaceState(null, '', `#job=${id}`);
    view.focus();
  }

  async function refresh(): Promise<void> {
    listError.hidden = true;
    const agent = o.agentId().trim() || 'default';
    let jobs: Job[];
    try {
      jobs = (await call<{ data: Job[] }>('GET', `/v1/jobs?agent_id=${encodeURIComponent(agent)}&limit=20`)).data;
    } catch (err) {
      listError.textContent = (err as Error).message;
      listError.hidden = false;
      return;
    }
    const rows = jobs.map((job) => {
      const li = document.createElement('li');
      li.dataset.jobId = job.id;
      const what = Object.assign(document.createElement('span'), { className: 'what', textContent: job.title });
      const status = Object.assign(document.createElement('span'), { className: 'job-status', textContent: job.status });
      const when = Object.assign(document.createElement('span'), { className: 'when age', textContent: o.age(job.created_at) });
      const button = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Open' });
      button.setAttribute('aria-label', `Open job: ${job.title} (${job.status})`);
      button.addEventListener('click', () => void show(job.id));
      li.append(what, status, when, button);
      return li;
    });
    if (rows.length === 0) rows.push(Object.assign(document.createElement('li'), { textContent: `No background jobs for agent ${agent}.` }));
    list.replaceChildren(...rows);
  }

  stopButton.addEventListener('click', async () => {
    if (!open) return;
    stopButton.disabled = true;
    try {
      showStatus(await call<Job>('POST', `/v1/jobs/${encodeURIComponent(open.id)}/stop`));
    } catch (err) {
      viewError.textContent = (err as Error).message;
      viewError.hidden = false;
      stopButton.disabled = false;
    }
  });

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!open) return;
    const message = messageBox.value.trim();
    if (!message) return;
    viewError.hidden = true;
    try {
      await call('POST', `/v1/jobs/${encodeURIComponent(open.id)}/messages`, { message });
      messageBox.value = '';
    } catch (err) {
      viewError.textContent = (err as Error).message;
      viewError.hidden = false;
    }
  });

  $('jobs-refresh').addEventListener('click', () => void refresh());
  const fromHash = /^#job=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (fromHash) void show(fromHash[1]);
  void refresh();
  return { refresh };
}
