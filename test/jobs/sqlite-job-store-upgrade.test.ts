/**
 * A DATA_DIR whose `background_jobs` table predates stored pending approvals and recorded skills:
 * opening the SQLite job store adds the columns, and the jobs already there read with no pending
 * approvals and no recorded skills (their turns read the creating turn's request).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { SqliteJobStore } from '../../src/jobs/sqlite-job-store.js';

it('adds pending_approvals and skills to a job table from before them, keeping the jobs', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jobs-upgrade-'));
  try {
    const old = openDatabase(dir);
    old.exec(`CREATE TABLE background_jobs (
      id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, title TEXT NOT NULL, task TEXT NOT NULL, status TEXT NOT NULL, model TEXT,
      source_turn_id TEXT, source_call_id TEXT, respawned_from TEXT, respawned_to TEXT, notify INTEGER NOT NULL DEFAULT 1,
      turn_ids TEXT NOT NULL DEFAULT '[]', pending_messages TEXT NOT NULL DEFAULT '[]', question TEXT, notice TEXT, output_text TEXT,
      error TEXT, attempts INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT, updated_at TEXT NOT NULL)`);
    old.prepare(`INSERT INTO background_jobs (id, agent_id, title, task, status, created_at, updated_at) VALUES ('0190aaaa-0000-7000-8000-000000000001', 'a', 'Old', 'do it', 'running', 'x', 'x')`).run();
    old.close();
    const db = openDatabase(dir);
    const store = new SqliteJobStore(db);
    expect(await store.get('0190aaaa-0000-7000-8000-000000000001')).toMatchObject({ title: 'Old', status: 'running', pending_approvals: [], skills: null });
    new SqliteJobStore(db); // opening again changes nothing
    const call = { turn_id: 't', call_id: 'c', name: 'command', label: null, expires_at: 'x' };
    expect(await store.transition('0190aaaa-0000-7000-8000-000000000001', 'waiting_on_approval', { pending_approvals: [call] })).toMatchObject({ pending_approvals: [call] });
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
