/** Load openapi.yaml and validate real responses against it with Ajv (JSON Schema 2020-12). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { ROOT } from './child.js';

export const spec = parse(readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8')) as any;

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('date-time', (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)));
ajv.addSchema({ ...spec, $id: 'spec' });

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON pointer (into the spec) of a response body schema, following a response-level $ref. */
export function responseSchemaPointer(p: string, method: string, status: number, mediaType = 'application/json'): string {
  const op = spec.paths?.[p]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${p} is not in openapi.yaml`);
  const resp = op.responses?.[String(status)];
  if (!resp) throw new Error(`${method} ${p} documents no ${status} response`);
  let base = `#/paths/${esc(p)}/${method.toLowerCase()}/responses/${status}`;
  let node = resp;
  if (resp.$ref) {
    base = resp.$ref;
    node = resp.$ref.split('/').slice(1).reduce((n: any, k: string) => n[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  if (!node.content?.[mediaType]?.schema) throw new Error(`${method} ${p} ${status} has no ${mediaType} schema`);
  return `${base}/content/${esc(mediaType)}/schema`;
}

/** Validate `body` against the documented response; returns Ajv errors (empty when valid). */
export function validateResponse(p: string, method: string, status: number, body: unknown, mediaType?: string): string[] {
  const validate = ajv.getSchema(`spec${responseSchemaPointer(p, method, status, mediaType)}`)!;
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Validate against a named component schema. */
export function validateComponent(name: string, value: unknown): string[] {
  const validate = ajv.getSchema(`spec#/components/schemas/${name}`);
  if (!validate) throw new Error(`no component ${name}`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
