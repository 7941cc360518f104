/**
 * The languages whose symbols (functions, methods, classes) are read, by file extension. Here in
 * the core, with no parser, so that anything may ask whether a file has symbols at all.
 */
export type SymbolLanguage = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java';

const EXTENSIONS: Record<string, SymbolLanguage> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
};

/** The language of a path by its extension, or null when its symbols are not read. */
export function languageOf(path: string): SymbolLanguage | null {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot <= slash + 1 ? null : (EXTENSIONS[path.slice(dot + 1).toLowerCase()] ?? null);
}

/** The extensions read, for messages. */
export const SYMBOL_EXTENSIONS = Object.keys(EXTENSIONS);
