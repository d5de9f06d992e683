/**
 * The web family creator: `web_fetch` always (when the family applies), `web_search` only when a
 * search provider is configured (WEB_SEARCH_PROVIDER plus its key / URL) — absent otherwise, never
 * present-and-failing.
 *
 * When it applies:
 * - main and scheduled turns: when the turn's families include `web`;
 * - workflow task turns (`kind === 'workflow_task'`): always — their fixed catalog holds "the web
 *   tools currently available" — so this same creator goes in both MAIN_TURN_FAMILIES and
 *   WORKFLOW_TASK_FAMILIES (src/assembly/assemble.ts).
 * Full texts of clipped pages are saved in the agent home only when the turn also has the computer
 * family (whose read_file can open them).
 */
import type { TurnContext } from '../../assembly/context.js';
import type { FamilyCreator, FamilyResult } from '../../assembly/family.js';
import type { AnyWorkerAgentTool } from '../../runtime/tool.js';
import { FetchCache } from './fetch-cache.js';
import { createSearchProvider, searchUnavailableReason } from './search-providers.js';
import type { HostResolver } from './target-guard.js';
import { createWebFetchTool } from './web-fetch.js';
import { createWebSearchTool } from './web-search.js';
import { FETCH_BUDGET_SHARE } from './budget.js';

/** Test seams for {@link createWebFamily}. */
export interface WebFamilyDeps {
  /** DNS resolver for web_fetch's SSRF guard (default: the system resolver). */
  resolver?: HostResolver;
}

/** Build a web family creator (tests pass a resolver; production uses {@link webFamily}). */
export function createWebFamily(deps: WebFamilyDeps = {}): FamilyCreator {
  return {
    family: 'web',
    create(ctx: TurnContext): FamilyResult {
      if (ctx.kind !== 'workflow_task' && !ctx.families.includes('web')) {
        return { unavailable: 'not enabled for this turn' };
      }
      const c = ctx.config;
      const tools: AnyWorkerAgentTool[] = [
        createWebFetchTool({
          allowHosts: c.WEB_FETCH_ALLOW_HOSTS,
          timeoutMs: c.WEB_FETCH_TIMEOUT_MS,
          maxBytes: c.WEB_FETCH_MAX_BYTES,
          extractTimeoutMs: c.WEB_EXTRACT_TIMEOUT_MS,
          saveHome: ctx.kind !== 'workflow_task' && ctx.families.includes('computer') ? ctx.agentHome : undefined,
          saveHomeAcross: ctx.services.homeLocks ? { lock: ctx.services.homeLocks, agentId: ctx.agentId } : undefined,
          resolver: deps.resolver,
          cache: new FetchCache(),
          charBudget: Math.floor(c.TOOL_OUTPUT_MAX_CHARS * FETCH_BUDGET_SHARE),
        }),
      ];
      const search = { provider: c.WEB_SEARCH_PROVIDER, apiKey: c.WEB_SEARCH_API_KEY, baseUrl: c.WEB_SEARCH_URL, timeoutMs: c.WEB_FETCH_TIMEOUT_MS };
      const provider = createSearchProvider(search);
      if (provider) tools.push(createWebSearchTool(provider, c.WEB_FETCH_TIMEOUT_MS));
      // web_fetch alone: say why web_search is missing (the model and the client see it in `unavailable`).
      const why = provider ? null : searchUnavailableReason(search);
      return why ? { tools, unavailable: `web_search: ${why}` } : { tools };
    },
  };
}

/** The web family for main and scheduled turns (MAIN_TURN_FAMILIES). */
export const webFamily: FamilyCreator = createWebFamily();

/**
 * The web family for workflow task turns (WORKFLOW_TASK_FAMILIES): the same creator — it gives a
 * workflow task turn the web tools currently available without requiring `web` in its families.
 */
export const workflowTaskWebFamily: FamilyCreator = webFamily;
