import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeContract } from '../../src/integrations/realm-files.js';
import { registerRealm, S3_SCHEMA, threeRepoRealm } from '../helpers/realm.js';
import { connectStdio } from '../helpers/stdio.js';
import { tempDir } from '../helpers/temp.js';

describe('a server in a realm member repo', () => {
  it('notices a contract change by itself, and tells its session on its next call', async () => {
    const home = tempDir('collab-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ realm_scan_seconds: 5 }));
    const { realm, repos } = threeRepoRealm();
    registerRealm(home, realm);
    const consumer = await connectStdio({ cwd: repos.aperture, home, args: ['--toolsets', 'collab,realm'] });
    try {
      await consumer.call('session_start', { rfc: 'rfc-1' });
      writeContract(realm, 's3-access', {
        name: 's3-permissions',
        owner: 'fungal',
        version: '1.1.0',
        schema: S3_SCHEMA,
      });
      let notifications: Array<Record<string, unknown>> | undefined;
      for (let i = 0; i < 120 && !notifications; i++) {
        await new Promise((r) => setTimeout(r, 100));
        notifications = (
          await consumer.call<{ notifications?: Array<Record<string, unknown>> }>('collab_session_list')
        ).notifications;
      }
      expect(notifications).toEqual([
        expect.objectContaining({ type: 'contract_updated', old_version: '1.0.0', new_version: '1.1.0' }),
      ]);
    } finally {
      await consumer.close();
    }
  }, 30_000);
});
