/**
 * `agents/openai.yaml` of a skill: its MCP server dependencies, used through `mcporter` inside the
 * sandbox (see mcporter-config.ts). The file is YAML of at most {@link MAX_MANIFEST_BYTES}:
 *
 * ```yaml
 * interface: {...}          # optional, not used by this service
 * policy: {...}             # optional, not used by this service
 * dependencies:
 *   tools:                  # at most MAX_TOOLS_PER_SKILL entries
 *     - type: mcp
 *       value: notes        # the server name ([A-Za-z0-9_-]{1,64}); tools are called as notes.<tool>
 *       description: Notes  # optional
 *       transport: stdio    # or streamable_http
 *       command: node /skills/notes/scripts/server.cjs   # stdio: run with /bin/sh -lc in the sandbox
 *       url: https://…/mcp  # streamable_http
 *       bearer_token_env_var: NOTES_TOKEN                # streamable_http, optional: a SKILL_SECRETS name
 *       enabled_tools: [add]                             # optional allow-list
 *       disabled_tools: [drop]                           # optional deny-list
 * ```
 * Unknown fields are rejected (each error names the field path).
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SkillFormatError } from './skill-format.js';
import { issuePath } from '../zod-messages.js';

export const MAX_MANIFEST_BYTES = 64 * 1024;
/** The manifest's path in a skill folder, as errors name it. */
const FILE = 'agents/openai.yaml';
export const MAX_TOOLS_PER_SKILL = 64;
export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ENV_VAR = /^[A-Za-z_][A-Za-z0-9_]*$/;

const toolNames = z.array(z.string().min(1).max(128)).max(256);

const base = {
  type: z.literal('mcp'),
  value: z.string().regex(MCP_SERVER_NAME, `value (the MCP server name) must match ${MCP_SERVER_NAME.source}`),
  description: z.string().max(1024).optional(),
  enabled_tools: toolNames.optional(),
  disabled_tools: toolNames.optional(),
};

const StdioServer = z.strictObject({ ...base, transport: z.literal('stdio'), command: z.string().min(1).max(4096) });
const HttpServer = z.strictObject({
  ...base,
  transport: z.literal('streamable_http'),
  url: z.url({ protocol: /^https?$/ }).max(2048),
  bearer_token_env_var: z.string().regex(ENV_VAR, 'bearer_token_env_var must be an environment variable name').optional(),
});

/** One declared MCP server. */
export type McpServerDecl = z.infer<typeof StdioServer> | z.infer<typeof HttpServer>;

const Manifest = z.strictObject({
  interface: z.unknown().optional(),
  policy: z.unknown().optional(),
  dependencies: z
    .strictObject({ tools: z.array(z.discriminatedUnion('transport', [StdioServer, HttpServer])).max(MAX_TOOLS_PER_SKILL).optional() })
    .optional(),
});

/** The field a schema issue is about: its path, and for unknown keys the (first) key itself. */
function fieldPath(issue: z.core.$ZodIssue): PropertyKey[] {
  return issue.code === 'unrecognized_keys' && issue.keys.length > 0 ? [...issue.path, issue.keys[0]] : issue.path;
}

/**
 * Parse `agents/openai.yaml` (its bytes) into the declared MCP servers.
 * @throws SkillFormatError naming the file and the first problems (field path: message); its
 *   details name the file, the first problem's field and, for schema problems, every one of them.
 */
export function parseMcpManifest(bytes: Buffer): McpServerDecl[] {
  if (bytes.length > MAX_MANIFEST_BYTES) throw new SkillFormatError(`agents/openai.yaml must be at most ${MAX_MANIFEST_BYTES} bytes`, FILE);
  let data: unknown;
  try {
    data = parseYaml(bytes.toString('utf8'), { maxAliasCount: 16 });
  } catch (err) {
    throw new SkillFormatError(`agents/openai.yaml is not valid YAML: ${(err as Error).message.split('\n')[0]}`, FILE);
  }
  const parsed = Manifest.safeParse(data ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${issuePath(i.path) || '(root)'}: ${i.message}`);
    const issues = parsed.error.issues.map((i) => ({ path: issuePath(fieldPath(i)), code: i.code, message: i.message }));
    throw new SkillFormatError(`agents/openai.yaml: ${problems.join('; ')}`, FILE, issues[0].path, issues);
  }
  const servers = parsed.data.dependencies?.tools ?? [];
  const names = new Set<string>();
  for (const [i, s] of servers.entries()) {
    if (names.has(s.value)) throw new SkillFormatError(`agents/openai.yaml declares MCP server "${s.value}" twice`, FILE, issuePath(['dependencies', 'tools', i, 'value']));
    names.add(s.value);
  }
  return servers;
}
