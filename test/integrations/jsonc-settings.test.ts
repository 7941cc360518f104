import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { editSettings, readSettings } from '../../src/integrations/jsonc-settings.js';

describe('JSON settings with comments', () => {
  it('reads comments and trailing commas; says where a broken file breaks', () => {
    expect(readSettings('{\n  // mine\n  "a": 1, /* two */\n}\n', 's.json')).toEqual({ a: 1 });
    expect(() => readSettings('{\n  "a": 1\n  "b": 2\n}', 's.json')).toThrow(
      /s\.json is not valid JSON \(CommaExpected at line 3, column 3\)/,
    );
    expect(() => readSettings('[1]', 's.json')).toThrow(/does not hold a JSON object/);
  });

  it('sets only what changes, keeping comments, order and indentation', () => {
    const text =
      '{\n\t// the model\n\t"model": "opus",\n\t"hooks": {\n\t\t/* theirs */\n\t\t"Stop": [],\n\t},\n}\n';
    const after = editSettings(text, 's.json', [
      { at: ['model'], value: 'opus' },
      { at: ['hooks', 'PreToolUse'], value: [{ matcher: 'Edit' }] },
    ]);
    expect(after).toContain('\t// the model\n\t"model": "opus",');
    expect(after).toContain('/* theirs */');
    expect(after).toContain('\t\t"PreToolUse": [\n\t\t\t{\n\t\t\t\t"matcher": "Edit"');
    expect(parse(after)).toEqual({ model: 'opus', hooks: { Stop: [], PreToolUse: [{ matcher: 'Edit' }] } });
    expect(
      editSettings(after, 's.json', [{ at: ['hooks', 'PreToolUse'], value: [{ matcher: 'Edit' }] }]),
    ).toBe(after);
    // Through something that is not an object: replaced by one.
    expect(parse(editSettings('{"hooks": "x"}', 's.json', [{ at: ['hooks', 'A'], value: 1 }]))).toEqual({
      hooks: { A: 1 },
    });
    expect(editSettings(null, 's.json', [{ at: ['a', 'b'], value: true }])).toBe(
      '{\n  "a": {\n    "b": true\n  }\n}\n',
    );
  });

  it('leaves a neighbour on the edited line as its owner wrote it, and a one-line file on one line', () => {
    const ours = { at: ['mcpServers', 'session-collab'], value: { command: 'npx', args: ['serve'] } };
    const neighbour = '{\n  "mcpServers": {\n    "other": {"command": "x", "args": ["a"]}\n  }\n}\n';
    const after = editSettings(neighbour, '.mcp.json', [ours]);
    expect(after).toBe(
      '{\n  "mcpServers": {\n    "other": {"command": "x", "args": ["a"]},\n    "session-collab": {\n      "command": "npx",\n      "args": [\n        "serve"\n      ]\n    }\n  }\n}\n',
    );
    const line = '{"mcpServers":{"other":{"command":"x","args":["a"]}}}\n';
    const inLine = editSettings(line, '.mcp.json', [ours]);
    expect(inLine.startsWith('{"mcpServers":{"other":{"command":"x","args":["a"]},')).toBe(true);
    expect(inLine.trim()).not.toContain('\n');
    // Taken out, before a neighbour or alone: the rest is laid out as it was.
    const out = (text: string) => editSettings(text, '.mcp.json', [{ ...ours, value: undefined }]);
    expect(
      out(
        '{\n  "mcpServers": {\n    "session-collab": {\n      "command": "npx"\n    },\n    "other": 1\n  }\n}\n',
      ),
    ).toBe('{\n  "mcpServers": {\n    "other": 1\n  }\n}\n');
    expect(
      out('{\n  "mcpServers": {\n    "session-collab": {\n      "command": "npx"\n    }\n  }\n}\n'),
    ).toBe('{\n  "mcpServers": {}\n}\n');
    // An empty object of a laid-out file is laid out around what goes in.
    expect(editSettings('{\n  "x": 1,\n  "mcpServers": {}\n}\n', '.mcp.json', [ours])).toBe(
      '{\n  "x": 1,\n  "mcpServers": {\n    "session-collab": {\n      "command": "npx",\n      "args": [\n        "serve"\n      ]\n    }\n  }\n}\n',
    );
    expect(parse(inLine)).toEqual({
      mcpServers: {
        other: { command: 'x', args: ['a'] },
        'session-collab': { command: 'npx', args: ['serve'] },
      },
    });
  });
});
