import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { mergeRules } from '../../src/integrations/client-setup.js';
import {
  CODEX_SERVER_ENV,
  codexHttpTable,
  codexStdioTable,
  codexTransport,
  codexTrust,
  codexTrusts,
  mergeCodexToml,
  removeCodexServer,
} from '../../src/integrations/codex-toml.js';

const ours = codexStdioTable('session-collab', ['serve']);

describe("Codex's config.toml, read by a TOML parser and edited in place", () => {
  it('finds trust however it is spelled: single quotes, a comment after it, dotted keys, an inline table', () => {
    for (const text of [
      "[projects.'/repo']\ntrust_level = 'trusted'\n",
      '[projects."/repo"] # mine\ntrust_level = "trusted" # yes\n',
      'projects."/repo".trust_level = "trusted"\n',
      '[projects]\n"/repo" = { trust_level = "trusted" }\n',
    ])
      expect(codexTrusts(text, '/repo'), text).toBe(true);
    expect(codexTrusts('[projects."/repo"]\ntrust_level = "untrusted"\n', '/repo')).toBe(false);
    expect(codexTrusts('[projects."/repo/sub"]\ntrust_level = "trusted"\n', '/repo')).toBe(false);
    expect(codexTrusts('not toml [', '/repo')).toBe(false);
  });

  it('trusts a folder in its own table, keeping its other settings and every comment', () => {
    const text =
      '# my codex\nmodel = "gpt-5" # the best\n\n[projects."/repo"]\ntrust_level = "untrusted"\nnote = 1\n\n[other]\nx = 1\n';
    const after = codexTrust(text, '/repo');
    expect(after).toBe(
      '# my codex\nmodel = "gpt-5" # the best\n\n[projects."/repo"]\ntrust_level = "trusted"\nnote = 1\n\n[other]\nx = 1\n',
    );
    expect(codexTrust(after, '/repo')).toBe(after);
    const added = codexTrust('model = "gpt-5"\n', '/a b/"c"');
    expect(parse(added)).toEqual({ model: 'gpt-5', projects: { '/a b/"c"': { trust_level: 'trusted' } } });
  });

  it('updates our server however its header is written, keeping the rest, its comments and what the user added to it', () => {
    const text = [
      '# top',
      'model = "gpt-5"',
      '',
      "[ mcp_servers . 'session-collab' ] # an old one",
      'command = "old"',
      '',
      '[mcp_servers."session-collab".env]',
      'A = "1"',
      '',
      '[mcp_servers.other] # keep me',
      'command = "other"',
      '',
    ].join('\n');
    const after = mergeCodexToml(text, ours);
    expect(after).toContain('# top');
    expect(after).toContain('[mcp_servers.other] # keep me');
    expect(after).not.toContain('command = "old"');
    // Its header as the user wrote it, and the sub-table the user added, stay.
    expect(after).toContain("[ mcp_servers . 'session-collab' ] # an old one");
    expect(parse(after)).toEqual({
      model: 'gpt-5',
      mcp_servers: {
        other: { command: 'other' },
        'session-collab': {
          command: 'session-collab',
          args: ['serve'],
          env_vars: [...CODEX_SERVER_ENV],
          env: { A: '1' },
        },
      },
    });
    // Codex passes a server it starts only the variables it names: ours are named.
    expect(CODEX_SERVER_ENV).toContain('SESSION_COLLAB_HOME');
    expect(CODEX_SERVER_ENV).toContain('SESSION_COLLAB_DATABASE_URL');
    expect(codexTransport(after)).toBe('stdio');
    expect(mergeCodexToml(after, ours)).toBe(after);
  });

  it('refuses what it cannot edit in place, naming the fix, and a file that is not TOML', () => {
    for (const text of [
      'mcp_servers.session-collab.command = "x"\n',
      '[mcp_servers]\nsession-collab = { command = "x" }\n',
    ])
      expect(() => mergeCodexToml(text, ours), text).toThrow(/cannot edit in place/);
    expect(() => mergeCodexToml('a = [', ours)).toThrow(/is not valid TOML at line 1/);
  });

  it("init run again keeps what the user added to our table and the next table's comment; removal keeps that comment", () => {
    const first = mergeCodexToml('[mcp_servers.github]\ncommand = "gh"\n', ours);
    const edited = first
      .replace(
        /(\[mcp_servers\.session-collab\]\n(?:.*\n)*?env_vars = .*\n)/,
        '$1startup_timeout_sec = 60\n\n[mcp_servers.session-collab.env]\nX = "1"\n',
      )
      .replace('[mcp_servers.github]', '# ==== GitHub server ====\n[mcp_servers.github]');
    expect(parse(edited)).toMatchObject({
      mcp_servers: { 'session-collab': { startup_timeout_sec: 60, env: { X: '1' } } },
    });
    const again = mergeCodexToml(edited, ours);
    expect(again).toBe(edited);
    // Another form of ours (the hub over HTTP): the stdio keys go, the user's stay.
    const http = mergeCodexToml(edited, codexHttpTable('http://127.0.0.1:8787/mcp', null));
    expect(parse(http)).toEqual({
      mcp_servers: {
        github: { command: 'gh' },
        'session-collab': {
          url: 'http://127.0.0.1:8787/mcp',
          env_http_headers: { 'X-Collab-Project': 'PWD' },
          startup_timeout_sec: 60,
          env: { X: '1' },
        },
      },
    });
    const removed = removeCodexServer(edited);
    expect(removed).toContain('# ==== GitHub server ====\n[mcp_servers.github]');
    expect(parse(removed)).toEqual({ mcp_servers: { github: { command: 'gh' } } });
  });

  it('a file written with CRLF line ends keeps them, in what it adds too', () => {
    const crlf = '# mine\r\nmodel = "o3"\r\n';
    for (const after of [mergeCodexToml(crlf, ours), codexTrust(crlf, '/work/repo')]) {
      expect(after.replace(/\r\n/g, '')).not.toContain('\n');
      expect(after).toContain('# mine\r\n');
    }
    const rules = mergeRules('# Project\r\n\r\nUse pnpm.\r\n', 'CLAUDE.md');
    expect(rules.replace(/\r\n/g, '')).not.toContain('\n');
    expect(mergeRules(rules, 'CLAUDE.md')).toBe(rules);
  });
});
