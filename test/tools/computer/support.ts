/**
 * Test support for the computer and todo families: a real TurnContext on a temporary DATA_DIR,
 * and `call()`, which runs one function call through the runtime's real dispatcher
 * (`dispatchRound`: argument validation, labels, `Error:` outputs, presentation events).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TurnContext } from '../../../src/assembly/context.js';
import { loadConfig, type ToolFamily } from '../../../src/config.js';
import { CircuitBreaker } from '../../../src/runtime/circuit-breaker.js';
import { dispatchRound } from '../../../src/runtime/dispatch.js';
import type { TurnEvent } from '../../../src/runtime/events.js';
import { afterAll, beforeAll } from 'vitest';
import { toolIdentity, type AnyWorkerAgentTool } from '../../../src/runtime/tool.js';
import { createComputerFamily } from '../../../src/tools/computer/index.js';
import { lookupSandboxUser, type SandboxUser } from '../../../src/tools/computer/sandbox/sandbox-user.js';

export async function tempDir(prefix = 'computer-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A TurnContext for `agentId` on `dataDir`, with config built from `env` (like the service does). */
export function turnContext(dataDir: string, opts: { agentId?: string; families?: ToolFamily[]; env?: Record<string, string>; signal?: AbortSignal } = {}): TurnContext {
  const agentId = opts.agentId ?? 'agent-a';
  const config = loadConfig({ DATA_DIR: dataDir, ...opts.env });
  const families = opts.families ?? ['todo', 'computer'];
  return {
    turnId: `turn-${Math.random().toString(36).slice(2)}`,
    agentId,
    kind: 'main',
    origin: { type: 'api' },
    families,
    brain: false,
    config,
    agentHome: path.join(config.DATA_DIR, 'agents', agentId, 'home'),
    signal: opts.signal ?? new AbortController().signal,
    services: {},
    model: 'test-model',
    requestedTools: families,
  };
}

/** A temporary DATA_DIR with one agent's home and its computer tools, from {@link useComputerHome}. */
export interface ComputerHome {
  /** Set in `beforeAll`; read it inside hooks and tests only. */
  readonly dataDir: string;
  /** The agent's home (`<dataDir>/agents/<agentId>/home`). */
  readonly home: string;
  readonly tools: AnyWorkerAgentTool[];
}

/**
 * Register `beforeAll`/`afterAll` hooks for the current file that make a temporary DATA_DIR,
 * build the computer tools for a turn context on it (`agentId` default `agent-a`), and remove the
 * directory afterwards. Returns the handle filled in once the hook has run.
 */
export function useComputerHome(opts: { agentId?: string } = {}): ComputerHome {
  const h = {} as { dataDir: string; home: string; tools: AnyWorkerAgentTool[] };
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ dir: h.dataDir, cleanup } = await tempDir());
    const ctx = turnContext(h.dataDir, opts.agentId === undefined ? {} : { agentId: opts.agentId });
    h.home = ctx.agentHome;
    ({ tools: h.tools } = await computerTools(ctx));
  });
  afterAll(() => cleanup?.());
  return h;
}

/** Build the computer tools for a context; throws when the family reports no tools. */
export async function computerTools(ctx: TurnContext, bwrapPath?: string): Promise<{ tools: AnyWorkerAgentTool[]; unavailable?: string }> {
  const r = await createComputerFamily({ bwrapPath }).create(ctx);
  if (!r.tools) throw new Error(`computer family unavailable: ${r.unavailable}`);
  return { tools: r.tools, unavailable: r.unavailable };
}

export interface CallResult {
  output: string;
  isError: boolean;
  state: string;
  /** tool.started label (null when no activity row). */
  startedLabel: string | null | undefined;
  /** tool.completed label. */
  completedLabel: string | null | undefined;
  details: unknown;
  events: TurnEvent[];
}

let callSeq = 0;

/** Dispatch one call of `name` with `args` (an object, or raw argument text) through the runtime. */
export async function call(tools: AnyWorkerAgentTool[], name: string, args: unknown, opts: { signal?: AbortSignal; turn?: TurnContext } = {}): Promise<CallResult> {
  const events: TurnEvent[] = [];
  const callId = `call_${++callSeq}`;
  const res = await dispatchRound(
    [{ callId, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }],
    {
      tools: new Map(tools.map((t) => [toolIdentity(t), t])),
      signal: opts.signal ?? new AbortController().signal,
      turnContext: opts.turn ?? {},
      emit: async (e) => {
        events.push(e);
      },
      breaker: new CircuitBreaker(),
    },
  );
  const started = events.find((e) => e.type === 'tool.started');
  const completed = events.find((e) => e.type === 'tool.completed');
  return {
    output: res.outcomes[0].outputText,
    isError: res.outcomes[0].isError,
    state: res.outcomes[0].state,
    startedLabel: started?.type === 'tool.started' ? started.label : undefined,
    completedLabel: completed?.type === 'tool.completed' ? completed.label : undefined,
    details: completed?.type === 'tool.completed' ? completed.details : undefined,
    events,
  };
}

/**
 * Host pids of live processes whose environment contains `marker` (commands get a unique
 * `MARKER=<uuid>` env var). Reads /proc/<pid>/environ (the tests run as root, as CI does).
 */
export function processesWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const file = `/proc/${entry}/environ`;
    try {
      if (!existsSync(file)) continue;
      const env = readFileSync(file, 'latin1');
      if (env.includes(`MARKER=${marker}`)) {
        const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
        if (!/\) Z /.test(stat)) found.push(Number(entry));
      }
    } catch {
      // the process ended meanwhile, or is not ours to read
    }
  }
  return found;
}

/** Poll `fn` until it returns true or `ms` pass. */
export async function waitFor(fn: () => boolean | Promise<boolean>, ms: number, stepMs = 50): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await fn()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** The host account that runs the sandbox when the tests run as root (COMPUTER_SANDBOX_USER's default). */
export async function sandboxUser(name = loadConfig({}).COMPUTER_SANDBOX_USER): Promise<SandboxUser> {
  const u = await lookupSandboxUser(name);
  if ('reason' in u) throw new Error(u.reason);
  return u;
}
