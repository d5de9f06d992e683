/**
 * The `web_fetch` tool {urls: 1..5}: fetch pages through the SSRF guard (./guarded-fetch.ts), turn
 * them into readable text (./extract.ts, in a worker thread: ./extract-pool.ts), share the 40 000-character budget (./budget.ts), save
 * full texts of clipped pages in the agent home when the computer family can read them, and mark
 * repeats from the per-turn cache (./fetch-cache.ts). Each URL succeeds or fails on its own; only
 * when every URL fails does the call fail (`Error:` output listing each failure).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { resolveInHome } from '../computer/home.js';
import { writeFileInHome } from '../computer/home-fs.js';
import { withHomeLock, type HomeLockTarget } from '../computer/home-lock.js';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../runtime/tool.js';
import { allocateBudget, clipHeadTail, FETCH_BUDGET_SHARE, type OmittedPart } from './budget.js';
import { extractOffThread } from './extract-pool.js';
import { FetchCache, type FetchedPage } from './fetch-cache.js';
import { guardedFetch, parseHttpUrl } from './guarded-fetch.js';
import { systemResolver, type HostResolver } from './target-guard.js';
import { keepHead } from '../../runtime/text-cut.js';

/** Folder (relative to the agent home) where full texts of clipped pages are saved. */
export const SAVED_PAGES_DIR = 'web_fetch';

/** What {@link createWebFetchTool} needs. */
export interface WebFetchOptions {
  /** WEB_FETCH_ALLOW_HOSTS: hosts allowed to be private (see target-guard.ts `hostAllowed`). */
  allowHosts: readonly string[];
  /** WEB_FETCH_TIMEOUT_MS: connect and total timeout per URL, ms. */
  timeoutMs: number;
  /** WEB_FETCH_MAX_BYTES: max decoded body bytes per URL. */
  maxBytes: number;
  /** WEB_EXTRACT_TIMEOUT_MS: time limit of turning one body into text (worker thread), ms; default 10 000. */
  extractTimeoutMs?: number;
  /**
   * Absolute agent home to save full texts in; set only when the turn has the computer family
   * (whose read_file can open them). Undefined = clipped pages are not saved.
   */
  saveHome?: string;
  /** The home lock across instances for `saveHome` (several instances on Postgres); absent: in-process only. */
  saveHomeAcross?: HomeLockTarget['across'];
  /** DNS resolver (tests inject one); default: the system resolver. */
  resolver?: HostResolver;
  /** The per-turn repeat cache; default: a fresh one. */
  cache?: FetchCache;
  /** Characters per call shared by the URLs; default {@link FETCH_BUDGET_SHARE} of the call's output budget. */
  charBudget?: number;
  /** Extra trusted CA certificates (PEM) for HTTPS (tests); default: Node's bundled roots. */
  ca?: string | string[];
}

/** Per-page facts in `details` (clients, logs; never sent to the model). */
export interface WebFetchPageDetails {
  url: string;
  finalUrl: string;
  status: number;
  contentType: string;
  title: string | null;
  /** Full text length in characters. */
  chars: number;
  clipped: boolean;
  repeat: boolean;
  savedPath?: string;
}

export interface WebFetchDetails {
  pages: WebFetchPageDetails[];
  errors: { url: string; error: string }[];
}

const schema = z.object({
  urls: z
    .array(z.string().min(1).max(2048))
    .min(1)
    .max(5)
    .describe('1 to 5 absolute http(s) URLs to read'),
});

type Outcome =
  | { ok: true; url: string; page: FetchedPage; repeatAgeMs?: number }
  | { ok: false; url: string; error: string };

function hostOf(raw: string): string {
  try {
    return new URL(raw).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return raw.length > 40 ? `${keepHead(raw, 40)}…` : raw;
  }
}

function andMore(count: number): string {
  return count > 1 ? ` and ${count - 1} more` : '';
}

function cacheKey(raw: string): string {
  try {
    const u = new URL(raw);
    u.hash = '';
    return u.href;
  } catch {
    return raw;
  }
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 1 ? 'less than a minute' : `${m} min`;
}

/** How long saving a page waits for a running command of the agent to end, ms. */
const SAVE_LOCK_WAIT_MS = 5000;

/**
 * Save a clipped page's full text under `web_fetch/` in the agent home, holding the home lock
 * shared (no command of the agent runs meanwhile, see computer/home-lock.ts; when a command keeps
 * it longer than 5 s, the page is returned without a saved copy). The path goes through
 * the file tools' home rule (`resolveInHome`: the real path must stay in the home) and the file is
 * written race-safely (computer/home-fs.ts: folders walked with O_NOFOLLOW, the file created with
 * O_EXCL|O_NOFOLLOW and its descriptor verified inside the home), so a `web_fetch` symlink planted
 * by a command can never redirect the write and an existing file is never overwritten.
 * @returns the path relative to the home.
 */
async function savePage(target: HomeLockTarget, page: FetchedPage, signal: AbortSignal): Promise<string> {
  const { home } = target;
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const hash = createHash('sha256').update(page.finalUrl).digest('hex').slice(0, 8);
  const host = hostOf(page.finalUrl).replace(/[^a-zA-Z0-9.-]/g, '_');
  // A running command holds the home exclusively: wait a little, then answer without a saved copy.
  const wait = AbortSignal.any([signal, AbortSignal.timeout(SAVE_LOCK_WAIT_MS)]);
  return withHomeLock(target, 'shared', wait, async () => {
    const file = await resolveInHome(home, `${SAVED_PAGES_DIR}/${stamp}-${host}-${hash}.md`);
    await writeFileInHome(file, page.text, file.relative, true);
    return file.relative;
  });
}

function markerFor(savedPath: string | undefined): (o: OmittedPart) => string {
  return (o) => {
    const n = o.omittedChars.toLocaleString('en-US');
    return savedPath
      ? `\n\n[… ${n} characters omitted. Full text saved as ${savedPath}; continue with read_file {"path": "${savedPath}", "offset": ${o.fromLine}} …]\n\n`
      : `\n\n[… ${n} characters omitted (starting at line ${o.fromLine}) …]\n\n`;
  };
}

/**
 * Build the web_fetch tool for one turn. Parallel and read-only (the only write is the saved copy of
 * a clipped page in the agent's own home).
 */
export function createWebFetchTool(options: WebFetchOptions) {
  const resolver = options.resolver ?? systemResolver;
  const cache = options.cache ?? new FetchCache();
  const extractTimeoutMs = options.extractTimeoutMs ?? 10_000;

  async function fetchOne(url: string, signal: AbortSignal): Promise<Outcome> {
    const key = cacheKey(url);
    const hit = cache.get(key);
    if (hit) return { ok: true, url, page: hit.page, repeatAgeMs: hit.ageMs };
    try {
      parseHttpUrl(url);
      const res = await guardedFetch(url, { resolver, allowHosts: options.allowHosts, timeoutMs: options.timeoutMs, maxBytes: options.maxBytes, signal, ca: options.ca });
      const content = await extractOffThread(res.body, res.contentType, res.finalUrl, { timeoutMs: extractTimeoutMs, signal });
      const page: FetchedPage = {
        url,
        finalUrl: res.finalUrl,
        status: res.status,
        contentType: res.contentType.split(';')[0].trim().toLowerCase(),
        title: content.title,
        text: content.plainTextReason ? `[shown as plain text: ${content.plainTextReason}]\n\n${content.text}` : content.text,
        bodyCut: res.truncated,
      };
      cache.set(key, page);
      return { ok: true, url, page };
    } catch (err) {
      if (signal.aborted) throw err;
      return { ok: false, url, error: err instanceof Error ? err.message : String(err) };
    }
  }

  return defineWorkerTool({
    name: 'web_fetch',
    description:
      'Fetch 1-5 web pages (http/https) and return their readable text: HTML as Markdown, plain text and JSON as is. ' +
      `Output is limited to ${options.charBudget ? `${options.charBudget.toLocaleString('en-US')} characters` : 'a fixed number of characters'} per call shared by the URLs; longer pages keep their start and end` +
      (options.saveHome ? ' and their full text is saved in your home, readable with read_file at the offset given.' : '.') +
      ' Private and local network addresses are refused.',
    schema,
    executionMode: 'parallel',
    isReadOnly: true,
    timeoutMs: options.timeoutMs * 2 + (options.extractTimeoutMs ?? 10_000) + 10_000,
    describeActivity: (p) => `Reading ${hostOf(p.urls[0])}${andMore(p.urls.length)}`,
    describeFailedActivity: (p, f) => `${f.kind === 'cancelled' ? 'Stopped reading' : 'Could not read'} ${hostOf(p.urls[0])}${andMore(p.urls.length)}`,
    describeCompletedActivity: (p, result: AgentToolResult<WebFetchDetails>) => {
      const first = result.details?.pages[0];
      if (!first) return undefined;
      const host = hostOf(first.finalUrl);
      const what = first.title ? `«${first.title}» · ${host}` : host;
      const failed = result.details?.errors.length ?? 0;
      return `Read ${what}${andMore(p.urls.length - failed)}${failed ? ` (${failed} failed)` : ''}`;
    },
    async execute(params, ctx): Promise<AgentToolResult<WebFetchDetails>> {
      let done = 0;
      const outcomes = await Promise.all(
        params.urls.map(async (url) => {
          const outcome = await fetchOne(url, ctx.signal);
          done++;
          if (params.urls.length > 1) ctx.emit({ message: `fetched ${done} of ${params.urls.length} pages` });
          return outcome;
        }),
      );
      const errors = outcomes.flatMap((o) => (o.ok ? [] : [{ url: o.url, error: o.error }]));
      if (errors.length === outcomes.length) {
        throw new Error(errors.map((e) => `${e.url}: ${e.error}`).join('\n'));
      }
      const pages = outcomes.filter((o): o is Extract<Outcome, { ok: true }> => o.ok);
      const budget = options.charBudget ?? Math.floor(ctx.outputMaxChars * FETCH_BUDGET_SHARE);
      const allowances = allocateBudget(pages.map((o) => o.page.text.length), budget);
      const details: WebFetchDetails = { pages: [], errors };
      const sections: string[] = [];
      let pageIndex = 0;
      for (const [i, o] of outcomes.entries()) {
        const head = `[${i + 1}] ${o.url}`;
        if (!o.ok) {
          sections.push(`${head}\nError: ${o.error}`);
          continue;
        }
        const page = o.page;
        const allowance = allowances[pageIndex++];
        const clipped = page.text.length > allowance;
        if (clipped && options.saveHome && page.savedPath === undefined) {
          try {
            page.savedPath = await savePage({ home: options.saveHome, across: options.saveHomeAcross }, page, ctx.signal);
          } catch {
            page.savedPath = undefined;
          }
        }
        const body = clipHeadTail(page.text, allowance, markerFor(options.saveHome ? page.savedPath : undefined));
        const lines = [head];
        if (page.finalUrl !== o.url) lines.push(`Redirected to: ${page.finalUrl}`);
        if (page.title) lines.push(`Title: ${page.title}`);
        lines.push(`Status: ${page.status} · ${page.contentType || 'no content type'} · ${page.text.length.toLocaleString('en-US')} characters`);
        if (o.repeatAgeMs !== undefined) {
          lines.push(`Repeat: already fetched in this turn ${minutes(o.repeatAgeMs)} ago; same content as then (cached).`);
        }
        if (page.bodyCut) lines.push(`Note: the response was cut at ${options.maxBytes.toLocaleString('en-US')} bytes (WEB_FETCH_MAX_BYTES).`);
        sections.push(`${lines.join('\n')}\n\n${body.text || '(empty page)'}`);
        details.pages.push({
          url: o.url,
          finalUrl: page.finalUrl,
          status: page.status,
          contentType: page.contentType,
          title: page.title,
          chars: page.text.length,
          clipped,
          repeat: o.repeatAgeMs !== undefined,
          savedPath: page.savedPath,
        });
      }
      return textResult(sections.join('\n\n---\n\n'), details);
    },
  });
}
