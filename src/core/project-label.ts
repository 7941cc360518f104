/**
 * What a person calls a project: its name (a repository's remote, `github.com/acme/api`; its
 * `project:` name; its folder's name), else, for a project made before projects had names, the
 * folder its key is (without `/.git`).
 */
export function projectLabel(project: { root: string; name: string | null }): string {
  return project.name ?? project.root.replace(/\/\.git$/, '');
}
