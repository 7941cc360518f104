/**
 * The target a request names none of: the remote's default branch, as git would name a branch. A
 * name written into the remote's HEAD by hand that git refuses as a branch (`-dash`) is no target.
 */
import { expect, it } from 'vitest';
import { defaultTarget } from '../../src/integrations/git-landing.js';
import { locateFolder } from '../../src/integrations/git-repo.js';
import { cloneOf, git, gitRepo } from '../helpers/temp.js';

it("a remote's HEAD naming no branch git allows falls back to its main", async () => {
  const copy = cloneOf(gitRepo());
  const { commonDir } = locateFolder(copy);
  expect(await defaultTarget(copy, commonDir)).toBe('main');
  git(copy, 'update-ref', 'refs/remotes/origin/-dash', 'HEAD');
  git(copy, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/-dash');
  expect(await defaultTarget(copy, commonDir)).toBe('main');
});
