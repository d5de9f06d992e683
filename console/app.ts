/**
 * Turn console entry point: wires the form, the turn view, the event stream and the list of
 * recent turns. Uses only the public API (see api.ts). The open turn is kept in the URL hash
 * (`#turn=<id>`) so a reload reopens it (replayed from the service's event log).
 */
import { Api, ApiError, plainWords, type Turn } from './api.js';
import { TurnView } from './render.js';
import { ApprovalsPanel } from './approvals.js';
import { TurnStream } from './stream.js';
import { SteerBox } from './steer.js';
import { QuestionBox } from './question.js';
import { applyEvent, initialTurnState, isTerminal, type TurnState } from './turn-state.js';
import { initJobs } from './jobs.js';
import { turnOwnerNote } from './owner.js';

const TOKEN_KEY = 'turn-console.token';

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

const tokenInput = $<HTMLInputElement>('token');
tokenInput.value = sessionStorage.getItem(TOKEN_KEY) ?? '';
tokenInput.addEventListener('change', () => {
  sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
  void loadRecent();
});

const api = new Api(() => tokenInput.value);

let current: { state: TurnState; view: TurnView; stream: TurnStream } | null = null;
const steer = new SteerBox(api);
const question = new QuestionBox(
  api,
  () => [...document.querySelectorAll<HTMLInputElement>('#start-form input[name=tools]:checked')].map((c) => c.value),
  (turn) => {
    follow(turn);
    $('turn').focus();
    void loadRecent();
  },
);

function eventsUrl(turn: Turn): string {
  return turn.links?.events ?? `/v1/turns/${encodeURIComponent(turn.id)}/events`;
}

/** `url` with the stream token of `events` (the turn's links.events), when it has one. */
function withStreamToken(url: string, events: string): string {
  const token = new URL(events, location.href).searchParams.get('stream_token');
  return token ? `${url}?stream_token=${encodeURIComponent(token)}` : url;
}

/** Show `turn` and follow its events from the start (a finished turn is replayed from the log). */
function follow(turn: Turn): void {
  current?.stream.close();
  // Start from the stored status: a running turn reads "Running" at once; the stored events
  // (replayed first by the stream) fill in the activity.
  const state = initialTurnState(turn.id, turn.status);
  // A background job's or workflow task's turn takes messages and cancels through its owner only.
  const owner = turnOwnerNote(turn);
  cancelButton.hidden = owner !== null;
  const view = new TurnView(turn.id, (url) => withStreamToken(url, eventsUrl(turn)));
  const approvals = new ApprovalsPanel($('approvals-section'), $<HTMLUListElement>('approvals'), async (callId, decision, reason) => {
    await api.decideApproval(turn.id, { call_id: callId, decision, ...(reason ? { reason } : {}) });
  }, plainWords);
  const stream = new TurnStream({
    url: eventsUrl(turn),
    lastSeq: () => state.lastSeq,
    onEvent: (event) => {
      if (!applyEvent(state, event)) return;
      view.render(state);
      steer.render(state, owner);
      approvals.render(state.approvals, !isTerminal(event.type) && state.status !== 'completed' && state.status !== 'failed' && state.status !== 'cancelled');
      question.render(turn, state);
      if (isTerminal(event.type)) void loadRecent(); // its status changed in the list
    },
    onConnection: (c) => view.setConnection(c),
    refreshUrl: async () => eventsUrl(await api.getTurn(turn.id)),
  });
  current = { state, view, stream };
  view.render(state);
  steer.render(state, owner);
  question.render(turn, state);
  stream.start();
  if (location.hash !== `#turn=${turn.id}`) history.replaceState(null, '', `#turn=${turn.id}`);
}

async function open(id: string): Promise<void> {
  try {
    follow(await api.getTurn(id));
    $('turn').focus();
  } catch (err) {
    showRecentError(plainWords(err));
  }
}

// --- start form ---------------------------------------------------------------------------

const form = $<HTMLFormElement>('start-form');
const formError = $('form-error');
const startButton = $<HTMLButtonElement>('start');

form.addEventListener('submit', (e) => {
  e.preventDefault();
  void start();
});

// Ctrl/Cmd+Enter in the input starts the turn too.
$<HTMLTextAreaElement>('input').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    form.requestSubmit();
  }
});

async function start(): Promise<void> {
  formError.hidden = true;
  const input = $<HTMLTextAreaElement>('input').value.trim();
  const agentId = $<HTMLInputElement>('agent-id').value.trim();
  const tools = [...form.querySelectorAll<HTMLInputElement>('input[name=tools]:checked')].map((c) => c.value);
  if (!input) return formProblem('Type what the agent should do first.', 'input');
  if (agentId && !/^[A-Za-z0-9_-]{1,64}$/.test(agentId)) {
    return formProblem('The agent id may only use letters, digits, _ and - (at most 64).', 'agent-id');
  }
  startButton.disabled = true;
  try {
    const turn = await api.createTurn({
      input,
      tools,
      ...(agentId ? { agent_id: agentId } : {}),
      metadata: { title: input.slice(0, 120) },
    });
    follow(turn);
    $('turn').focus();
    void loadRecent();
  } catch (err) {
    formProblem(plainWords(err), err instanceof ApiError && err.status === 401 ? 'token' : undefined);
  } finally {
    startButton.disabled = false;
  }
}

function formProblem(text: string, focusId?: string): void {
  formError.textContent = text;
  formError.hidden = false;
  if (focusId === 'token') (document.querySelector('.settings') as HTMLDetailsElement).open = true;
  if (focusId) $(focusId).focus();
}

// --- cancel -------------------------------------------------------------------------------

const cancelButton = $<HTMLButtonElement>('cancel');
cancelButton.addEventListener('click', async () => {
  if (!current) return;
  const { state, view } = current;
  cancelButton.disabled = true;
  try {
    await api.cancelTurn(state.turnId);
    // The stream delivers turn.cancelled; the view updates from there.
  } catch (err) {
    view.showError(plainWords(err));
    cancelButton.disabled = false;
  }
});

// --- recent turns -------------------------------------------------------------------------

const recentList = $<HTMLUListElement>('recent');
const recentError = $('recent-error');

function showRecentError(text: string): void {
  recentError.textContent = text;
  recentError.hidden = false;
}

function describe(turn: Turn): string {
  const title = turn.metadata && typeof turn.metadata.title === 'string' ? turn.metadata.title.split('\n')[0] : '';
  return title || turn.input_preview || `Turn ${turn.id}`;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago" for an ISO time. */
export function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  const d = Math.round(s / 86_400);
  return `${d} day${d === 1 ? '' : 's'} ago`;
}

async function loadRecent(): Promise<void> {
  recentError.hidden = true;
  let turns: Turn[];
  try {
    turns = await api.listTurns(10);
  } catch (err) {
    showRecentError(plainWords(err));
    return;
  }
  const rows = turns.map((turn) => {
    const li = document.createElement('li');
    li.dataset.turnId = turn.id;
    const what = document.createElement('span');
    what.className = 'what';
    what.textContent = describe(turn);
    const status = document.createElement('span');
    status.className = 'turn-status';
    status.textContent = turn.status;
    const when = document.createElement('span');
    when.className = 'when age';
    if (turn.created_at) {
      when.textContent = age(turn.created_at);
      when.title = new Date(turn.created_at).toLocaleString();
    }
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Open';
    button.setAttribute('aria-label', `Open turn: ${describe(turn)} (${turn.status})`);
    button.addEventListener('click', () => void open(turn.id));
    li.append(what, status, when, button);
    return li;
  });
  if (rows.length === 0) {
    const li = document.createElement('li');
    li.textContent = 'No turns yet.';
    rows.push(li);
  }
  recentList.replaceChildren(...rows);
}

$('refresh').addEventListener('click', () => void loadRecent());

// --- background jobs (jobs.ts) -------------------------------------------------------------

const jobsPanel = initJobs({ token: () => tokenInput.value, agentId: () => $<HTMLInputElement>('agent-id').value, age: (iso) => age(iso) });
$<HTMLInputElement>('agent-id').addEventListener('change', () => void jobsPanel.refresh());

// --- boot ---------------------------------------------------------------------------------

const fromHash = /^#turn=([A-Za-z0-9_-]+)$/.exec(location.hash);
if (fromHash) void open(fromHash[1]);
void loadRecent();
