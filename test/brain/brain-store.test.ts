import { afterEach, describe, expect, it } from 'vitest';
import { BrainInputError, BrainStore } from '../../src/brain/brain-store.js';
import { toFtsMatch } from '../../src/brain/fts-query.js';
import { openDatabase, type Database } from '../../src/store/database.js';

let db: Database;
afterEach(() => db?.close());

function store() {
  db = openDatabase(':memory:');
  return new BrainStore(db);
}

describe('brain store', () => {
  it('creates, replaces, reads, lists and deletes pages per agent', () => {
    const s = store();
    expect(s.put('a1', 'alpha', { title: 'Alpha', markdown: 'first' }).created).toBe(true);
    const replaced = s.put('a1', 'alpha', { title: 'Alpha 2', markdown: 'second' });
    expect(replaced.created).toBe(false);
    expect(s.get('a1', 'alpha')).toMatchObject({ title: 'Alpha 2', markdown: 'second', agent_id: 'a1' });
    expect(s.get('a2', 'alpha')).toBeUndefined();
    s.put('a1', 'beta', { title: 'Beta', markdown: 'x' });
    s.put('a2', 'gamma', { title: 'Gamma', markdown: 'y' });
    const first = s.list('a1', { limit: 1 });
    expect(first.pages.map((p) => p.slug)).toEqual(['alpha']);
    expect(first.pages[0].bytes).toBe(6);
    const second = s.list('a1', { limit: 1, after: first.next! });
    expect(second).toEqual({ pages: [expect.objectContaining({ slug: 'beta' })], next: null });
    expect(s.delete('a1', 'alpha')).toBe(true);
    expect(s.delete('a1', 'alpha')).toBe(false);
    expect(s.get('a1', 'alpha')).toBeUndefined();
  });

  it('rejects bad slugs, empty titles and oversized pages with every problem listed', () => {
    const s = store();
    try {
      s.put('a1', '../etc', { title: ' ', markdown: 'x'.repeat(600 * 1024) });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(BrainInputError);
      expect((err as BrainInputError).details).toHaveLength(3);
    }
  });

  it('ranks pages by relevance, title words weighing more, and keeps agents apart', () => {
    const s = store();
    s.put('a1', 'deploy', { title: 'Deploying the service', markdown: 'Run the container with Docker. Set PORT and DATA_DIR.' });
    s.put('a1', 'notes', { title: 'Misc notes', markdown: 'Lunch menu. We once talked about deploying on Fridays.' });
    s.put('a1', 'cats', { title: 'Cats', markdown: 'Cats sleep a lot.' });
    s.put('a2', 'secret', { title: 'Deploying secrets', markdown: 'deploying deploying deploying' });
    const hits = s.search('a1', 'deploying docker');
    expect(hits.map((h) => h.reference)).toEqual(['deploy', 'notes']);
    expect(hits[0].snippet).toContain('**Docker**');
    expect(hits[0].title).toBe('Deploying the service');
  });

  it('keeps the index in step with updates and deletes', () => {
    const s = store();
    s.put('a1', 'p', { title: 'P', markdown: 'old words zebra' });
    s.put('a1', 'p', { title: 'P', markdown: 'new words giraffe' });
    expect(s.search('a1', 'zebra')).toEqual([]);
    expect(s.search('a1', 'giraffe').map((h) => h.reference)).toEqual(['p']);
    s.delete('a1', 'p');
    expect(s.search('a1', 'giraffe')).toEqual([]);
  });

  it('treats FTS5 syntax in a query as plain words, never as an error', () => {
    const s = store();
    s.put('a1', 'p', { title: 'Quotes', markdown: 'he said "NEAR" AND (maybe) not' });
    expect(toFtsMatch('"NEAR(" AND title:x* ^ -')).toBe('"near"* OR "and"* OR "title"* OR "x"*');
    expect(s.search('a1', '"NEAR(" AND')).toHaveLength(1);
    expect(s.search('a1', '*** ((( ')).toEqual([]);
  });
});
