/** A folder tree of claimed patterns: each node a path segment, each claim under the node of its pattern. */
export interface TreeNode<T> {
  name: string;
  path: string;
  children: TreeNode<T>[];
  /** What is claimed at exactly this pattern. */
  items: T[];
  /** Whether something below (or here) is marked. */
  marked: boolean;
}

/**
 * Builds the tree of `entries` (a pattern and what holds it), folders first then by name. Globs stay
 * one segment each (`src/**` is the node `**` under `src`). `mark` flags entries to highlight; a
 * node is marked when anything at or below it is.
 */
export function pathTree<T>(
  entries: Array<{ pattern: string; item: T }>,
  mark: (item: T) => boolean,
): TreeNode<T> {
  const root: TreeNode<T> = { name: '', path: '', children: [], items: [], marked: false };
  for (const { pattern, item } of entries) {
    let node = root;
    const flagged = mark(item);
    if (flagged) node.marked = true;
    for (const segment of pattern.split('/').filter(Boolean)) {
      let child = node.children.find((c) => c.name === segment);
      if (!child) {
        child = {
          name: segment,
          path: node.path ? `${node.path}/${segment}` : segment,
          children: [],
          items: [],
          marked: false,
        };
        node.children.push(child);
      }
      node = child;
      if (flagged) node.marked = true;
    }
    node.items.push(item);
  }
  const sort = (node: TreeNode<T>): void => {
    node.children.sort((a, b) => a.name.localeCompare(b.name));
    node.children.forEach(sort);
  };
  sort(root);
  return root;
}
