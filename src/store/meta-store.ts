import type { Sql } from './sql.js';

export class MetaStore {
  constructor(private readonly sql: Sql) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]))?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      [key, value],
    );
  }
}
