/** Programmatic entry for benchmarks and embedding: the application without the CLI. */
export { App } from './app/app.js';
export { DEFAULT_CONFIG } from './app/config.js';
export { homeAt, resolveHome } from './app/home.js';
export { parseGitDiff, writtenBy } from './core/hunks.js';
export { languageOf } from './core/languages.js';
export { predictChanges } from './core/merge-prediction.js';
export { interfaceChanges, semanticConflicts } from './core/semantic.js';
export { ownProcess } from './features/sessions/client-sessions.js';
export { Connection } from './features/sessions/connection.js';
export { claudeHooks } from './integrations/client-hook-sets.js';
export { COLLABORATION_RULES } from './integrations/client-setup.js';
export { readChanges } from './integrations/git-changes.js';
export { definitionsOf, markSymbols, symbolSpans, usesIn } from './integrations/symbols.js';
export { allTools, everyToolset, select, selectTools } from './mcp/registry.js';
export { callTool, toolDefinitions } from './mcp/server.js';
export { renderToolDocs, replaceToolDocs } from './mcp/tool-docs.js';
export { sqliteConnection, sqliteDriver } from './store/sqlite.js';
