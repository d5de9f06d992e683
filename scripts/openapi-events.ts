/**
 * Print the OpenAPI component schemas of every SSE turn event, derived from the zod schemas in
 * src/runtime/events.ts (the single source of truth), for pasting into openapi.yaml under
 * `components.schemas`. test/e2e/openapi.test.ts fails when openapi.yaml and this output differ.
 *
 * Usage: npx tsx scripts/openapi-events.ts
 */
import { stringify } from 'yaml';
import { turnEventComponents } from '../src/http/event-schemas.js';

process.stdout.write(stringify(turnEventComponents(), { lineWidth: 0 }));
