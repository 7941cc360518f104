import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI, requireBuild } from '../helpers/stdio.js';
import { gitRepo, tempDir } from '../helpers/temp.js';

function cli(home: string, cwd: string, ...args: string[]) {
  requireBuild();
  return spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...process.env, SESSION_COLLAB_HOME: home, NO_COLOR: '1' },
    encoding: 'utf8',
  });
}

describe('session-collab realm', () => {
  it('builds a realm without hand-written YAML, and `realm check` fails CI on errors', async () => {
    const home = tempDir('collab-home-');
    const base = tempDir('collab-realm-');
    const api = gitRepo();
    const web = gitRepo();
    const realm = join(base, 'realm');
    expect(cli(home, base, 'realm', 'init', realm, '--name', 'shop').stdout).toContain(
      'initialised as a git repository',
    );
    expect(cli(home, base, 'realm', 'add-repo', 'api', '--path', api, '--realm', realm).status).toBe(0);
    expect(cli(home, base, 'realm', 'add-repo', 'web', '--path', web, '--realm', realm).status).toBe(0);
    expect(parse(readFileSync(join(web, '.session-collab.yaml'), 'utf8'))).toMatchObject({ repo: 'web' });
    // From here on, commands run inside a member repo find the realm by themselves.
    expect(cli(home, api, 'realm', 'add-domain', 'orders').status).toBe(0);
    writeFileSync(
      join(base, 'order.json'),
      JSON.stringify({ type: 'object', properties: { id: { type: 'string' } } }),
    );
    const contract = cli(
      home,
      api,
      'realm',
      'contract',
      'orders',
      'order-event',
      '--owner',
      'api',
      '--version',
      '1.0.0',
      '--schema',
      join(base, 'order.json'),
    );
    expect(contract.stdout).toContain('Created orders/order-event@1.0.0');
    expect(contract.stdout).toContain('Realm-Repo: api');
    // The commit it suggests runs as printed, from the member repo, and lands in the realm's.
    const suggested = contract.stdout.slice(contract.stdout.indexOf('git -C')).trim();
    const committed = spawnSync('sh', ['-e', '-c', suggested], { cwd: api, encoding: 'utf8' });
    expect(committed.status, committed.stderr).toBe(0);
    expect(
      spawnSync('git', ['-C', realm, 'log', '-1', '--format=%(trailers:key=Realm-Repo,valueonly)'], {
        encoding: 'utf8',
      }).stdout.trim(),
    ).toBe('api');
    cli(home, api, 'realm', 'bind', 'orders', 'api', '--role', 'provider', '--exports', 'order-event');
    cli(home, web, 'realm', 'bind', 'orders', 'web', '--role', 'consumer', '--imports', 'order-event@^1.0.0');
    // A repo the realm does not have yet: bound all the same, with a warning that says what to add.
    const early = cli(home, api, 'realm', 'bind', 'orders', 'mobile', '--role', 'consumer');
    expect(early.status).toBe(0);
    expect(early.stderr).toContain('mobile is not a repo of this realm yet');
    expect(early.stderr).toContain('session-collab realm add-repo mobile');
    const { rmSync } = await import('node:fs');
    rmSync(join(realm, 'domains', 'orders', 'bindings', 'mobile.yaml'));

    const ok = cli(home, web, 'realm', 'check');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('Realm shop: OK');
    const status = JSON.parse(cli(home, web, 'realm', 'status', '--json').stdout);
    expect(status).toMatchObject({
      realm: 'shop',
      repo: 'web',
      domains: [{ name: 'orders', contracts: ['order-event@1.0.0 (api)'] }],
    });

    cli(
      home,
      api,
      'realm',
      'contract',
      'orders',
      'order-event',
      '--owner',
      'api',
      '--version',
      '2.0.0',
      '--schema',
      join(base, 'order.json'),
      '--change',
      'breaking',
    );
    const bad = cli(home, web, 'realm', 'check', '--json');
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout).errors).toEqual([
      expect.objectContaining({
        code: 'RANGE_UNSATISFIED',
        file: 'domains/orders/bindings/web.yaml',
        field: 'imports[0].version',
      }),
    ]);
  });

  it('a realm cloned from elsewhere works once registered: register, list, unregister', () => {
    const made = tempDir('collab-home-');
    const base = tempDir('collab-realm-');
    const realm = join(base, 'realm');
    const api = gitRepo();
    cli(made, base, 'realm', 'init', realm, '--name', 'shop');
    cli(made, base, 'realm', 'add-repo', 'api', '--path', api, '--realm', realm);
    // Another machine (another home) has the same folders but has not registered the realm.
    const home = tempDir('collab-home-');
    const refused = cli(home, api, 'realm', 'status');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('is not registered on this machine');
    expect(refused.stderr).toContain(`session-collab realm register ${realm}`);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(cli(home, base, 'realm', 'add-repo', 'web', '--path', gitRepo(), '--realm', realm).status).toBe(1);
    expect(cli(home, realm, 'realm', 'list').stdout).toContain('No realms registered');

    expect(cli(home, realm, 'realm', 'register').stdout).toContain('Registered realm shop');
    expect(cli(home, realm, 'realm', 'register', realm).stdout).toContain('was registered already');
    expect(cli(home, api, 'realm', 'status').status).toBe(0);
    expect(JSON.parse(cli(home, base, 'realm', 'list', '--json').stdout)).toEqual({
      realms: [{ root: realm, name: 'shop', source: 'registered', exists: true }],
    });
    expect(cli(home, base, 'realm', 'unregister', realm).stdout).toContain('Unregistered');
    expect(cli(home, api, 'realm', 'status').status).toBe(1);
    const again = cli(home, base, 'realm', 'unregister', realm);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('was not registered');
    // A folder without a realm cannot be registered.
    const none = cli(home, base, 'realm', 'register', gitRepo());
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('is not a realm');
  });

  it('refuses names that leave the realm, versions that are no semver and branches that read as options; writes nothing', () => {
    const home = tempDir('collab-home-');
    const base = tempDir('collab-realm-');
    const api = gitRepo();
    const realm = join(base, 'realm');
    cli(home, base, 'realm', 'init', realm, '--name', 'shop');
    expect(cli(home, base, 'realm', 'add-repo', 'api', '--path', api, '--realm', realm).status).toBe(0);
    cli(home, api, 'realm', 'add-domain', 'orders');
    writeFileSync(join(base, 'order.json'), JSON.stringify({ type: 'object' }));
    const before = spawnSync('find', [base], { encoding: 'utf8' }).stdout;
    const contract = (domain: string, owner: string, version: string) => [
      ...['realm', 'contract', domain, 'c1', '--owner', owner, '--version', version],
      ...['--schema', join(base, 'order.json')],
    ];
    const refusals: Array<[string[], RegExp]> = [
      [
        ['realm', 'bind', '../../../outside', 'api', '--role', 'consumer'],
        /domain name "\.\.\/.*not a valid name/,
      ],
      [
        ['realm', 'bind', 'orders', '../../x', '--role', 'consumer'],
        /repo name "\.\.\/\.\.\/x" is not a valid name/,
      ],
      [
        ['realm', 'bind', 'orders', 'api', '--role', 'consumer', '--imports', 'c@not a range'],
        /not a semver range/,
      ],
      [contract('../../..', 'api', '1.0.0'), /domain name/],
      [contract('orders', '../x', '1.0.0'), /--owner "\.\.\/x"/],
      [contract('orders', 'api', '1.0\nSYSTEM'), /--version "1\.0\\u000aSYSTEM" is not semver/],
      [
        ['realm', 'add-repo', 'web', '--path', gitRepo(), '--default-branch=--output=/tmp/x'],
        /--default-branch "--output=\/tmp\/x" is not a branch name/,
      ],
    ];
    for (const [args, message] of refusals) {
      const out = cli(home, api, ...args);
      expect(out.status, args.join(' ')).toBe(1);
      expect(out.stderr, args.join(' ')).toMatch(message);
    }
    expect(spawnSync('find', [base], { encoding: 'utf8' }).stdout).toBe(before);
  });

  it("add-repo keeps the repository's own settings, and takes no repository or name from another without --force", () => {
    const home = tempDir('collab-home-');
    const base = tempDir('collab-realm-');
    const api = gitRepo({
      '.session-collab.yaml': '# our project\nproject: shop-api\nland:\n  check: npm test\n',
    });
    const other = gitRepo();
    const [first, second] = [join(base, 'first'), join(base, 'second')];
    cli(home, base, 'realm', 'init', first, '--name', 'first');
    cli(home, base, 'realm', 'init', second, '--name', 'second');
    expect(cli(home, base, 'realm', 'add-repo', 'api', '--path', api, '--realm', first).status).toBe(0);
    const member = readFileSync(join(api, '.session-collab.yaml'), 'utf8');
    expect(member).toContain('# our project');
    expect(parse(member)).toMatchObject({ project: 'shop-api', land: { check: 'npm test' }, repo: 'api' });
    // Into the second realm: refused, the file as it was.
    const moved = cli(home, base, 'realm', 'add-repo', 'api', '--path', api, '--realm', second);
    expect(moved.status).toBe(1);
    expect(moved.stderr).toContain('Add --force to move it');
    expect(readFileSync(join(api, '.session-collab.yaml'), 'utf8')).toBe(member);
    // The name "api" of the first realm pointed at another repository: refused too.
    const taken = cli(home, base, 'realm', 'add-repo', 'api', '--path', other, '--realm', first);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toContain(`The realm's repo "api" is ${api}`);
    expect(existsSync(join(other, '.session-collab.yaml'))).toBe(false);
    // With --force it moves, keeping the repository's own settings.
    expect(
      cli(home, base, 'realm', 'add-repo', 'api', '--path', api, '--realm', second, '--force').status,
    ).toBe(0);
    expect(parse(readFileSync(join(api, '.session-collab.yaml'), 'utf8'))).toMatchObject({
      project: 'shop-api',
      land: { check: 'npm test' },
      realm: relative(api, second),
    });
  });

  it('says what to do outside a realm', () => {
    const out = cli(tempDir('collab-home-'), gitRepo(), 'realm', 'check');
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('belongs to no realm');
    expect(out.stderr).toContain('realm init');
  });
});
