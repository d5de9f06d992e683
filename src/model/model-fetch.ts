/**
 * The `fetch` the model clients hand to the `openai` SDK: undici 7's own `fetch` over a
 * dispatcher of their own, so model traffic runs on one HTTP stack, chosen here.
 *
 * Why not the global `fetch`: it is Node's bundled undici (6.x on Node 24), and merely importing
 * the npm `undici` package (the web tools and webhooks build guarded Agents with it) installs an
 * undici 7 Agent as the process's global dispatcher when none exists yet. The SDK's requests then
 * ran on Node's fetch over that Agent — two versions glued by undici's legacy-handler adapter,
 * and the stack depending on import order. With its own fetch and Agent, model traffic no longer
 * depends on what else was imported or on anyone calling `setGlobalDispatcher`, and the guarded
 * Agents of the web tools never see it. Measured (`npm run bench:dispatcher`, README
 * "Performance"): no slower than either alternative.
 */
import { Agent, fetch as undiciFetch } from 'undici';

const dispatcher = new Agent();

/** `fetch` for model requests (keep-alive connections of their own). */
export const modelFetch: typeof fetch = (input, init) =>
  undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher }) as unknown as Promise<Response>;
