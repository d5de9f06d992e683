import { afterEach, expect, it } from 'vitest';
import { BrainInputError, type BrainStore } from '../../src/brain/brain-store.js';
import { toFtsMatch } from '../../src/brain/fts-query.js';
import { describeEachEngine, openStores, type OpenStores } from '../support/store-engines.js';

// The brain store's contract: one suite, run on SQLite (FTS5) and on Postgres (full-text search).
describeEachEngine('brain store', (engine) => {
  let opened: OpenStores | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });
  const store = async (): Promise<BrainStore> => (opened = await openStores(engine)).brain;

  it('creates, replaces, reads, lists and deletes pages per agent', async () => {
    const s = await store();
    expect((await s.put('a1', 'alpha', { title: 'Alpha', markdown: 'first' })).created).toBe(true);
    const replaced = await s.put('a1', 'alpha', { title: 'Alpha 2', markdown: 'second' });
    expect(replaced.created).toBe(false);
    expect(await s.get('a1', 'alpha')).toMatchObject({ title: 'Alpha 2', markdown: 'second', agent_id: 'a1' });
    expect(await s.get('a2', 'alpha')).toBeUndefined();
    await s.put('a1', 'beta', { title: 'Beta', markdown: 'x' });
    await s.put('a2', 'gamma', { title: 'Gamma', markdown: 'y' });
    const first = await s.list('a1', { limit: 1 });
    expect(first.pages.map((p) => p.slug)).toEqual(['alpha']);
    expect(first.pages[0].bytes).toBe(6);
    const second = await s.list('a1', { limit: 1, after: first.next! });
    expect(second).toEqual({ pages: [expect.objectContaining({ slug: 'beta' })], next: null });
    expect(await s.delete('a1', 'alpha')).toBe(true);
    expect(await s.delete('a1', 'alpha')).toBe(false);
    expect(await s.get('a1', 'alpha')).toBeUndefined();
  });

  it('rejects bad slugs, empty titles and oversized pages with every problem listed', async () => {
    const s = await store();
    try {
      await s.put('a1', '../etc', { title: ' ', markdown: 'x'.repeat(600 * 1024) });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(BrainInputError);
      expect((err as BrainInputError).details.map((d) => [d.path, d.code])).toEqual([
        ['slug', 'invalid_format'],
        ['title', 'too_small'],
        ['markdown', 'too_big'],
      ]);
      expect((err as BrainInputError).message).toMatch(/^slug must be 1 to 128 characters .* got "\.\.\/etc": "\/" is not allowed; title must not be empty .*; markdown must be at most 524288 bytes \(UTF-8\), got 614400: split the text into several pages$/);
    }
  });

  it('ranks pages by relevance, title words weighing more, and keeps agents apart', async () => {
    const s = await store();
    await s.put('a1', 'deploy', { title: 'Deploying the service', markdown: 'Run the container with Docker. Set PORT and DATA_DIR.' });
    await s.put('a1', 'notes', { title: 'Misc notes', markdown: 'Lunch menu. We once talked about deploying on Fridays.' });
    await s.put('a1', 'cats', { title: 'Cats', markdown: 'Cats sleep a lot.' });
    await s.put('a2', 'secret', { title: 'Deploying secrets', markdown: 'deploying deploying deploying' });
    const hits = await s.search('a1', 'deploying docker');
    expect(hits.map((h) => h.reference)).toEqual(['deploy', 'notes']);
    expect(hits[0].snippet).toContain('**Docker**');
    expect(hits[0].title).toBe('Deploying the service');
  });

  it('keeps the index in step with updates and deletes', async () => {
    const s = await store();
    await s.put('a1', 'p', { title: 'P', markdown: 'old words zebra' });
    await s.put('a1', 'p', { title: 'P', markdown: 'new words giraffe' });
    expect(await s.search('a1', 'zebra')).toEqual([]);
    expect((await s.search('a1', 'giraffe')).map((h) => h.reference)).toEqual(['p']);
    await s.delete('a1', 'p');
    expect(await s.search('a1', 'giraffe')).toEqual([]);
  });

  it('treats FTS5 syntax in a query as plain words, never as an error', async () => {
    const s = await store();
    await s.put('a1', 'p', { title: 'Quotes', markdown: 'he said "NEAR" AND (maybe) not' });
    expect(toFtsMatch('"NEAR(" AND title:x* ^ -')).toBe('"near"* OR "and"* OR "title"* OR "x"*');
    expect((await s.search('a1', '"NEAR(" AND'))).toHaveLength(1);
    expect(await s.search('a1', '*** ((( ')).toEqual([]);
  });

  it('finds words by prefix and snippets the matched body words in bold', async () => {
    const s = await store();
    await s.put('a1', 'db', { title: 'Storage', markdown: 'The service keeps schedules in PostgreSQL when configured.' });
    const hits = await s.search('a1', 'postgres');
    expect(hits.map((h) => h.reference)).toEqual(['db']);
    expect(hits[0].snippet).toContain('**PostgreSQL**');
  });

  it('creates a page once when two writers put the same new slug at the same moment', async () => {
    const s = await store();
    const results = await Promise.all([1, 2, 3, 4].map((i) => s.put('a1', 'same', { title: `T${i}`, markdown: `body ${i}` })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect((await s.list('a1')).pages).toHaveLength(1);
  });
});
