/**
 * Watches worktrees, folders and subfolders, for files created, written, removed or renamed:
 * `@parcel/watcher` (inotify, FSEvents, ReadDirectoryChangesW; loaded on first use), skipping
 * folders by name (dependencies, build output, `.git`). Where a worktree cannot be watched so (no
 * inotify watches left, a file system without notifications), the files it is asked to poll are
 * compared by their times and sizes every second instead.
 */
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

type Watcher = typeof import('@parcel/watcher');
type Subscription = Awaited<ReturnType<Watcher['subscribe']>>;

let watcher: Watcher | undefined;
function load(): Watcher {
  watcher ??= createRequire(__filename)('@parcel/watcher') as Watcher;
  return watcher;
}

const POLL_MS = 1_000;
/** Files one polled worktree compares, at most. */
const MAX_POLLED = 2_000;

export interface WatchedTree {
  root: string;
  /** Folder names skipped wherever they are. */
  ignore: string[];
  /** The files to compare when the tree cannot be watched (called only then). */
  pollFiles: () => string[];
}

export class TreeWatch {
  private readonly subscribed = new Map<string, Promise<Subscription | null>>();
  private readonly polled = new Map<string, { files: () => string[]; stamps: Map<string, string> }>();
  private poller: NodeJS.Timeout | null = null;

  constructor(
    private readonly onChange: (root: string, path: string) => void,
    private readonly onFallback: (root: string, why: string) => void = () => {},
  ) {}

  /** Watches exactly these trees from now on. */
  async set(trees: WatchedTree[]): Promise<void> {
    const wanted = new Map(trees.map((t) => [t.root, t]));
    for (const [root, sub] of this.subscribed)
      if (!wanted.has(root)) {
        this.subscribed.delete(root);
        await sub.then((s) => s?.unsubscribe()).catch(() => {});
      }
    for (const root of this.polled.keys()) if (!wanted.has(root)) this.polled.delete(root);
    for (const tree of wanted.values())
      if (!this.subscribed.has(tree.root) && !this.polled.has(tree.root)) this.add(tree);
    await Promise.all(this.subscribed.values());
    this.schedulePoll();
  }

  get size(): number {
    return this.subscribed.size + this.polled.size;
  }

  async close(): Promise<void> {
    await this.set([]);
  }

  private add(tree: WatchedTree): void {
    const { root } = tree;
    const subscription = (async () => {
      try {
        return await load().subscribe(
          root,
          (error, events) => {
            if (error) return this.fallBack(tree, error.message);
            for (const e of events) this.onChange(root, e.path);
          },
          { ignore: tree.ignore.flatMap((name) => [name, `**/${name}`]) },
        );
      } catch (error) {
        this.fallBack(tree, (error as Error).message);
        return null;
      }
    })();
    this.subscribed.set(root, subscription);
  }

  private fallBack(tree: WatchedTree, why: string): void {
    if (this.polled.has(tree.root)) return;
    const sub = this.subscribed.get(tree.root);
    this.subscribed.delete(tree.root);
    void sub?.then((s) => s?.unsubscribe()).catch(() => {});
    this.onFallback(tree.root, why);
    const files = () => tree.pollFiles().slice(0, MAX_POLLED);
    this.polled.set(tree.root, { files, stamps: stamps(files()) });
    this.schedulePoll();
  }

  private schedulePoll(): void {
    if (this.polled.size === 0) {
      if (this.poller) clearInterval(this.poller);
      this.poller = null;
      return;
    }
    if (this.poller) return;
    this.poller = setInterval(() => {
      for (const [root, p] of this.polled) {
        const now = stamps(p.files());
        for (const [path, s] of now) if (p.stamps.get(path) !== s) this.onChange(root, path);
        for (const path of p.stamps.keys()) if (!now.has(path)) this.onChange(root, path);
        p.stamps = now;
      }
    }, POLL_MS);
    this.poller.unref();
  }
}

/** Files by their modification time and size ("" when missing or unreadable). */
function stamps(files: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const path of files) {
    try {
      const st = statSync(path, { throwIfNoEntry: false });
      out.set(path, st?.isFile() ? `${st.mtimeMs}:${st.size}` : '');
    } catch {
      out.set(path, ''); // a loop of links, no permission: as if missing
    }
  }
  return out;
}

/** The files directly in a folder (for a poll list), at most `limit`. */
export function filesIn(folder: string, limit: number): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((e) => e.isFile())
      .slice(0, limit)
      .map((e) => join(folder, e.name));
  } catch {
    return [];
  }
}
