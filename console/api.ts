/**
 * The console's HTTP client: the public API only (POST/GET /v1/turns, GET /v1/turns/{id},
 * POST /v1/turns/{id}/cancel, POST /v1/turns/{id}/messages, POST /v1/turns/{id}/approvals), same origin, with an optional bearer token. Errors arrive as the
 * service's envelope `{error: {code, message, details?}}` and are thrown as {@link ApiError}.
 */

/** A turn object as returned by the API (fields the console reads). */
export interface Turn {
  id: string;
  agent_id?: string;
  status: 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
  /** `main` | `scheduled` | `workflow_task` | `background_job` (the last two are driven by their owner). */
  kind?: string;
  /** Where the turn came from, e.g. `{type: "background_job", job_id}` or `{type: "workflow", workflow_id, task_index}`. */
  origin?: { type?: string; job_id?: string; workflow_id?: string; [key: string]: unknown };
  created_at?: string;
  completed_at?: string | null;
  output_text?: string | null;
  metadata?: Record<string, unknown> | null;
  /** First line of the input (server-side, ≤ 120 characters). */
  input_preview?: string | null;
  error?: { code: string; message: string } | null;
  links?: { self?: string; events?: string; cancel?: string };
}

/** A non-2xx answer (or no answer) from the service. `status` 0 = network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface CreateTurnBody {
  input: string;
  tools: string[];
  agent_id?: string;
  /** Continue this finished turn's conversation (e.g. answering its question). */
  previous_turn_id?: string;
  metadata?: Record<string, unknown>;
}

/** A small client bound to a token getter (the token can change while the page is open). */
export class Api {
  constructor(private readonly token: () => string) {}

  createTurn(body: CreateTurnBody): Promise<Turn> {
    return this.request<Turn>('POST', '/v1/turns', body);
  }

  getTurn(id: string): Promise<Turn> {
    return this.request<Turn>('GET', `/v1/turns/${encodeURIComponent(id)}`);
  }

  /** Send a steering message into an unfinished turn (202 `{message_id, seq, status: "queued"}`). */
  sendMessage(id: string, content: string): Promise<{ message_id: string; seq: number; status: string }> {
    return this.request('POST', `/v1/turns/${encodeURIComponent(id)}/messages`, { content });
  }

  cancelTurn(id: string): Promise<Turn> {
    return this.request<Turn>('POST', `/v1/turns/${encodeURIComponent(id)}/cancel`);
  }

  /** Record a decision on a call waiting for approval (POST /v1/turns/{id}/approvals). */
  decideApproval(id: string, body: { call_id: string; decision: 'approve' | 'reject'; reason?: string }): Promise<unknown> {
    return this.request('POST', `/v1/turns/${encodeURIComponent(id)}/approvals`, body);
  }

  /** Recent turns, newest first. Accepts the list under `data`, `items` or `turns`. */
  async listTurns(limit = 10): Promise<Turn[]> {
    const page = await this.request<Record<string, unknown>>('GET', `/v1/turns?limit=${limit}`);
    const list = page.data ?? page.items ?? page.turns;
    return Array.isArray(list) ? (list as Turn[]) : [];
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = this.token().trim();
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new ApiError(0, 'network', 'Could not reach the service. Check that it is running and try again.');
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const err = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiError(res.status, err?.code ?? `http_${res.status}`, err?.message ?? (text.slice(0, 200) || res.statusText));
    }
    return json as T;
  }
}

/** Say what went wrong in plain words, with what to do about it when we know. */
export function plainWords(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 0) return err.message;
    if (err.status === 401) return 'The service needs an API token. Open Settings, enter your token, and try again.';
    if (err.status === 403) return 'This token is not allowed to do that.';
    if (err.status === 404) return 'That turn does not exist (it may have been removed).';
    if (err.code === 'model_not_configured') {
      return 'No model is configured on the server yet. Set OPENAI_API_KEY or OPENAI_BASE_URL (an OpenAI-compatible endpoint) and restart it.';
    }
    // The turn is driven by a background job or a workflow: its message names the owner's routes.
    if (err.code === 'turn_owned') return err.message;
    if (err.status === 400) return `The request was not accepted: ${err.message}`;
    if (err.status === 413) return 'The input is too long for this server.';
    if (err.status >= 500) return `The service had a problem (${err.message}). Try again in a moment.`;
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** A failed turn's error (`turn.failed` / turn object) in plain words. */
export function turnErrorInPlainWords(error: { code: string; message: string }): string {
  switch (error.code) {
    case 'interrupted':
      return 'The turn was interrupted because the service restarted while it was running.';
    case 'model_not_configured':
      return 'No model is configured on the server, so the turn could not run.';
    case 'max_steps':
      return 'The turn stopped after reaching its step limit.';
    default:
      if (/^model|rate_limit|provider/.test(error.code)) return `The model service reported a problem: ${error.message}`;
      return `The turn failed: ${error.message}`;
  }
}
