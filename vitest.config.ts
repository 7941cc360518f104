import { defineConfig } from 'vitest/config';
import SlowFirst from './test/slow-first.js';

/**
 * Every test on the embedded database; the tool suite (every tool through the real MCP client, and
 * the services underneath) once more on the team database, PostgreSQL. Without a PostgreSQL the
 * second run's files say so and are skipped (test/helpers/pg.ts).
 */
const TOOL_SUITE = [
  'test/mcp/tools.test.ts',
  'test/mcp/notifications.test.ts',
  'test/mcp/calls-sent-again.test.ts',
  'test/features/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on other processes (servers, hubs, agent CLIs, git) rather than compute: on
    // CI's two cores, three files at a time (vitest's default would be one): 324–327 s for the suite
    // against 403 s with two, every test passing in both runs (four were no faster). Once, three
    // made the tests that bound a hook's or a replica's time fail now and then; the soak that loaded
    // both cores longest is shorter since (test/e2e/relay-soak.test.ts).
    maxWorkers: 3,
    sequence: { sequencer: SlowFirst },
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'postgresql',
          include: TOOL_SUITE,
          env: { SESSION_COLLAB_TEST_BACKEND: 'postgresql' },
        },
      },
    ],
  },
});
