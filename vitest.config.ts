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
    // CI's two cores, four files at a time (vitest's default would be one). The suite took 306 s
    // with four, against 335 s with three and 403 s with two, every test passing in each run, the
    // cores busy 96 % of the time with four. That is since the soak paces its load and tests of
    // real processes stopped loading the in-process app (helpers/tool-caller.ts): with the soak
    // unpaced, even three made tests that bound a hook's or a replica's time fail now and then.
    maxWorkers: 4,
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
