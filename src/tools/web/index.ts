/** Web tools family (web_fetch, web_search): re-exports only. */
export { createWebFamily, webFamily, workflowTaskWebFamily, type WebFamilyDeps } from './family.js';
export { createWebFetchTool, type WebFetchOptions, type WebFetchDetails } from './web-fetch.js';
export { createWebSearchTool, type WebSearchDetails } from './web-search.js';
export { createSearchProvider, searchUnavailableReason, type SearchProvider, type SearchHit } from './search-providers.js';
export { systemResolver, type HostResolver, type ResolvedAddress } from './target-guard.js';
