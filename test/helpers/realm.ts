import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from '../../src/app/app.js';
import {
  writeBinding,
  writeContract,
  writeDomain,
  writeMembership,
  writeRealm,
  writeRepo,
} from '../../src/integrations/realm-files.js';
import { testApp } from './app.js';
import { CLI, requireBuild } from './stdio.js';
import { git, tempDir } from './temp.js';

export const S3_SCHEMA = {
  type: 'object',
  properties: { bucket: { type: 'string' }, actions: { type: 'array', items: { type: 'string' } } },
  required: ['bucket'],
};

export function commitRealm(realm: string, message: string, repo?: string): void {
  git(realm, 'add', '-A');
  git(realm, 'commit', '-qm', message, ...(repo ? ['--trailer', `Realm-Repo: ${repo}`] : []));
}

/**
 * A realm of three real git repositories: fungal provides s3-permissions 1.0.0 in domain
 * s3-access, aperture consumes it (^1.0.0), other belongs to no domain.
 */
export function threeRepoRealm() {
  const base = tempDir('collab-realm-');
  const repos: Record<string, string> = {};
  for (const name of ['aperture', 'fungal', 'other']) {
    const dir = join(base, name);
    mkdirSync(dir);
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'README.md'), `# ${name}\n`);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', `initial (${base})`);
    repos[name] = dir;
  }
  const realm = join(base, 'realm');
  mkdirSync(realm);
  git(realm, 'init', '-q', '-b', 'main');
  writeRealm(realm, 'aperture-realm');
  for (const [name, dir] of Object.entries(repos)) {
    writeRepo(realm, name, `../${name}`, null);
    writeMembership(dir, realm, name);
  }
  writeDomain(realm, 's3-access', 'Who may touch which bucket');
  writeContract(realm, 's3-access', {
    name: 's3-permissions',
    owner: 'fungal',
    version: '1.0.0',
    schema: S3_SCHEMA,
    value: { bucket: 'assets' },
  });
  writeBinding(realm, 's3-access', {
    repo: 'fungal',
    role: 'provider',
    exports: ['s3-permissions'],
    imports: [],
  });
  writeBinding(realm, 's3-access', {
    repo: 'aperture',
    role: 'consumer',
    exports: [],
    imports: [{ contract: 's3-permissions', version: '^1.0.0' }],
  });
  commitRealm(realm, 'realm', 'fungal');
  return { base, realm, repos: repos as { aperture: string; fungal: string; other: string } };
}

/** A fresh app whose machine has the realm registered, as `realm init` or `realm register` leave it. */
export async function appWithRealm(realm: string, options: Parameters<typeof testApp>[0] = {}): Promise<App> {
  const app = await testApp(options);
  await app.realm.register(realm);
  return app;
}

/** Registers a realm in a home with the built CLI (`session-collab realm register`). */
export function registerRealm(home: string, realm: string): void {
  requireBuild();
  const out = spawnSync(process.execPath, [CLI, 'realm', 'register', realm], {
    env: { ...process.env, SESSION_COLLAB_HOME: home },
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`realm register failed: ${out.stderr}`);
}
