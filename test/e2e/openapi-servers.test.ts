/**
 * The served OpenAPI document points "Try it" and generated clients at the server that serves
 * it, whatever HOST and PORT are: its `servers` URL is relative.
 */
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestService } from './support/service.js';

it('serves a servers URL that resolves to the serving origin on a random port', async () => {
  const svc = await startTestService();
  try {
    const docUrl = `${svc.url}/openapi.yaml`;
    const doc = parse(await (await fetch(docUrl)).text()) as { servers: { url: string }[] };
    expect(doc.servers).toHaveLength(1);
    expect(new URL(doc.servers[0].url, docUrl).origin).toBe(new URL(svc.url).origin);
    expect(new URL(doc.servers[0].url, `${svc.url}/docs`).origin).toBe(new URL(svc.url).origin);
  } finally {
    await svc.close();
  }
});
