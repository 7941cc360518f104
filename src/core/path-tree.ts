import { isGlob } from './paths.js';

/** A folder tree of claimed patterns: each node a path (folders run together), each claim under its pattern's node. */
export interface TreeNode<T> {
  /** What the node shows: one folder, folders that hold nothing else run together (`src/api`), a file or a glob. */
  name: string;
  path: string;
  /** A pattern (`*`, `**`, `*.ts`, `**\/*.test.ts`) under the literal folders it starts from: one node, never a tree. */
  glob: boolean;
  children: TreeNode<T>[];
  /** What is claimed at exactly this pattern. */
  items: T[];
  /** Whether something below (or here) is marked. */
  marked: boolean;
}

/** A pattern's literal folders, then the rest as one part when it is a glob (`src/api/*` → src, api, *). */
function parts(pattern: string): Array<{ name: string; glob: boolean }> {
  const segments = pattern.split('/').filter(Boolean);
  const first = segments.findIndex((s) => isGlob(s));
  if (first === -1) return segments.map((name) => ({ name, glob: false }));
  return [
    ...segments.slice(0, first).map((name) => ({ name, glob: false })),
    { name: segments.slice(first).join('/'), glob: true },
  ];
}

/**
 * Builds the tree of `entries` (a pattern and what holds it), folders first then by name. A glob is
 * one node under its literal folders, and a folder holding only one folder is shown with it
 * (`src/api/` then `*`, not `src/` `api/` `*`). `mark` flags entries to highlight; a node is marked
 * when anything at or below it is.
 */
export function pathTree<T>(
  entries: Array<{ pattern: string; item: T }>,
  mark: (item: T) => boolean,
): TreeNode<T> {
  const root: TreeNode<T> = { name: '', path: '', glob: false, children: [], items: [], marked: false };
  for (const { pattern, item } of entries) {
    let node = root;
    const flagged = mark(item);
    if (flagged) node.marked = true;
    for (const part of parts(pattern)) {
      let child = node.children.find((c) => c.name === part.name && c.glob === part.glob);
      if (!child) {
        child = {
          name: part.name,
          path: node.path ? `${node.path}/${part.name}` : part.name,
          glob: part.glob,
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
  const tidy = (node: TreeNode<T>): void => {
    for (const [i, child] of node.children.entries()) {
      let joined = child;
      while (joined.items.length === 0 && joined.children.length === 1 && !joined.children[0]!.glob) {
        const only: TreeNode<T> = joined.children[0]!;
        joined = { ...only, name: `${joined.name}/${only.name}` };
      }
      node.children[i] = joined;
      tidy(joined);
    }
    node.children.sort((a, b) => a.name.localeCompare(b.name));
  };
  tidy(root);
  return root;
}
