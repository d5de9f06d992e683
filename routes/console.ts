/**
 * GET /console — the turn console, a small static page (console/: plain TypeScript, HTML, CSS)
 * that uses only the public API. Assets are served under /console/<file>.
 *
 * Where the files come from:
 * - running from the build (dist/routes/console.js): `dist/console/`, produced by `npm run build`
 *   (tsc -p console/tsconfig.json + console/copy-assets.mjs);
 * - running from source (tsx, vitest): `console/` — `.js` requests are answered by transpiling the
 *   matching `.ts` with TypeScript's `transpileModule` (once per file change), so tests and
 *   `npm run dev` need no build step.
 *
 * The page and its assets hold no secrets, so they are served without a token (src/http/auth.ts
 * lists /console as open); everything the page then does goes through the authenticated API.
 * A strict Content-Security-Policy allows only same-origin scripts, styles and connections.
 */
import { readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { RoutePlugin } from '../src/http/route-plugin.js';
import { HttpError } from '../src/http/errors.js';

const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(js|css|html)$/;
const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/** Content-Security-Policy of the console: same-origin scripts, styles and API calls only. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Folder of the console files next to this module (dist/console when built, console/ in source). */
export function consoleDir(): string {
  return fileURLToPath(new URL('../console/', import.meta.url));
}

interface Asset {
  body: string;
  mtimeMs: number;
}

/**
 * Reads console assets from `dir`. A `.js` file missing from `dir` is transpiled from the `.ts`
 * beside it (source checkout). Results are cached by source mtime.
 */
export function createConsoleAssets(dir: string): (name: string) => Promise<string | undefined> {
  const cache = new Map<string, Asset>();
  return async function load(name: string): Promise<string | undefined> {
    if (!ASSET_NAME.test(name)) return undefined;
    let file = path.join(dir, name);
    let transpile = false;
    if (name.endsWith('.js') && !existsSync(file)) {
      file = path.join(dir, name.replace(/\.js$/, '.ts'));
      transpile = true;
    }
    let info;
    try {
      info = await stat(file);
    } catch {
      return undefined;
    }
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === info.mtimeMs) return hit.body;
    const source = await readFile(file, 'utf8');
    const body = transpile ? await transpileTs(source, name) : source;
    cache.set(file, { body, mtimeMs: info.mtimeMs });
    return body;
  };
}

async function transpileTs(source: string, fileName: string): Promise<string> {
  // typescript is a devDependency: only a source checkout (which has it) reaches this.
  const ts = (await import('typescript')).default;
  return ts.transpileModule(source, {
    fileName: fileName.replace(/\.js$/, '.ts'),
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, verbatimModuleSyntax: true },
  }).outputText;
}

/** GET /console (and /console/) → the page; GET /console/:file → one of its assets (404 envelope otherwise). */
export const consoleRoutes: RoutePlugin = async (app) => {
  const load = createConsoleAssets(consoleDir());

  const send = async (name: string, reply: FastifyReply) => {
    const body = await load(name);
    if (body === undefined) throw new HttpError(404, 'not_found', `no console file ${name}`);
    return reply
      .type(TYPES[name.slice(name.lastIndexOf('.') + 1)])
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', CONSOLE_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .send(body);
  };

  app.get('/console', async (_request, reply) => send('index.html', reply)); // also /console/ (the router ignores a trailing slash)
  app.get<{ Params: { file: string } }>('/console/:file', async (request, reply) => send(request.params.file, reply));
};
