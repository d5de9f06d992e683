/**
 * Tool outputs and errors never show the service's own file layout: the host path of the agent
 * home (`…/data/agents/<agent_id>/home`, as given and as its real path) reads `~` wherever a
 * result, a progress message, `details` or an error message of the turn's tools would carry it
 * (`~/work/a.txt`, `~` for the home itself). File tools accept `~/…` paths, and in commands `~`
 * is `$HOME`, so what the model sees is also what it can use.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { OutputFilter } from '../../assembly/output-filter.js';
import { escapeRegExp } from '../../regexp-escape.js';

/** A filter replacing the host path of `home` (and its real path, once it exists) with `~`. */
export function hostPathFilter(home: string): OutputFilter {
  const given = path.resolve(home);
  let pattern: RegExp | undefined;
  let resolved = false;
  const current = (): RegExp => {
    if (!resolved) {
      let real: string | undefined;
      try {
        real = realpathSync(given);
        resolved = true;
      } catch {
        // Not created yet: match the given path only, and look again next time.
      }
      const paths = [...new Set([given, real].filter((p): p is string => !!p))].sort((a, b) => b.length - a.length);
      // Only whole path components: `/x/home` but not `/x/home2`.
      pattern = new RegExp(`(?:${paths.map(escapeRegExp).join('|')})(?![\\w.-])`, 'g');
    }
    return pattern!;
  };
  return (text) => text.replace(current(), '~');
}
