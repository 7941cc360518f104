import { statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order the suite's files start in: the slowest first, so that two at a time finish together
 * rather than one long file running alone at the end. A clean clone (CI) has no durations from an
 * earlier run, so the order is by an estimate: the files that drive real processes (test/e2e)
 * before the rest, each group larger files first.
 */
export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const weight = (spec: TestSpecification) => {
      let size = 0;
      try {
        size = statSync(spec.moduleId).size;
      } catch {
        // A file gone meanwhile weighs nothing.
      }
      return (spec.moduleId.includes('/test/e2e/') ? 4 : 1) * size;
    };
    return [...files].sort((a, b) => weight(b) - weight(a));
  }
}
