/**
 * Watches folders (each on its own, not its subfolders) for files written, created, removed or
 * renamed in them: by the system's notifications (`fs.watch`: inotify, FSEvents,
 * ReadDirectoryChangesW), or, where a folder cannot be watched so (no watches left, a file system
 * without notifications, a folder not there yet), by comparing its entries' times and sizes every
 * second: a tenth of those folders every tenth of a second, so that hundreds of them (a glob's
 * folders not created yet) never hold the event loop at once.
 *
 * Not `@parcel/watcher`: on Linux it takes one inotify instance per watched folder (128 per user by
 * default), and once they run out its `subscribe` never returns and blocks the process's event
 * loop; Node's watches share one instance and fail with an error instead.
 */
import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';

/** Entries of a polled folder compared, at most. */
const MAX_POLLED_ENTRIES = 2_000;
const POLL_MS = 1_000;
/** Each polled folder is looked at once a `POLL_MS`, in this many turns of the poller. */
const POLL_SLICES = 10;

type Stamp = Map<string, string>;

export class FolderWatch {
  private readonly watched = new Map<string, FSWatcher>();
  private readonly polled = new Map<string, Stamp>();
  private poller: NodeJS.Timeout | null = null;
  /** Where the poller's next turn starts among the polled folders. */
  private cursor = 0;
  /** How many looks at a folder the poller owes, in tenths. */
  private due = 0;
  /** Counts the calls of `set`: one still adding stops once another began. */
  private generation = 0;

  constructor(
    private readonly onChange: (folder: string, name: string) => void,
    private readonly onFallback: (folder: string, why: string) => void = () => {},
  ) {}

  /**
   * Watches exactly these folders from now on. Those no longer wanted go at once; new ones are
   * added one by one, with `turn` awaited between them (a watch costs a system call or two: hundreds
   * at once would hold the event loop), until a later `set` or `close` supersedes this one.
   */
  async set(folders: Iterable<string>, turn: () => Promise<void> = async () => {}): Promise<void> {
    const generation = ++this.generation;
    const wanted = new Set(folders);
    for (const [folder, w] of this.watched)
      if (!wanted.has(folder)) {
        w.close();
        this.watched.delete(folder);
      }
    for (const folder of this.polled.keys()) if (!wanted.has(folder)) this.polled.delete(folder);
    this.schedulePoll();
    for (const folder of wanted) {
      if (this.watched.has(folder) || this.polled.has(folder)) continue;
      await turn();
      if (generation !== this.generation) return;
      this.add(folder);
    }
    this.schedulePoll();
  }

  get size(): number {
    return this.watched.size + this.polled.size;
  }

  close(): void {
    void this.set([]);
  }

  private add(folder: string): void {
    try {
      const w = watch(folder, { persistent: false }, (_event, name) => {
        if (name) this.onChange(folder, name.toString());
      });
      w.on('error', (error) => {
        w.close();
        this.watched.delete(folder);
        this.poll(folder, error.message);
      });
      this.watched.set(folder, w);
    } catch (error) {
      // A folder that is not there (yet) is looked at by polling: its creation shows.
      this.poll(folder, (error as Error).message);
    }
  }

  private poll(folder: string, why: string): void {
    this.onFallback(folder, why);
    this.polled.set(folder, stamp(folder));
    this.schedulePoll();
  }

  private schedulePoll(): void {
    if (this.polled.size === 0) {
      if (this.poller) clearInterval(this.poller);
      this.poller = null;
      return;
    }
    if (this.poller) return;
    this.poller = setInterval(() => this.pollTurn(), POLL_MS / POLL_SLICES);
    this.poller.unref();
  }

  /** Compares the next slice of the polled folders with how they were. */
  private pollTurn(): void {
    const folders = [...this.polled.keys()];
    // A tenth of them a turn, what is left over carried: each folder once a POLL_MS, however few.
    this.due = Math.min(this.due + folders.length, folders.length * POLL_SLICES);
    const per = Math.floor(this.due / POLL_SLICES);
    this.due -= per * POLL_SLICES;
    if (this.cursor >= folders.length) this.cursor = 0;
    for (const folder of folders.slice(this.cursor, this.cursor + per)) {
      const before = this.polled.get(folder)!;
      const now = stamp(folder);
      for (const [name, s] of now) if (before.get(name) !== s) this.onChange(folder, name);
      for (const name of before.keys()) if (!now.has(name)) this.onChange(folder, name);
      this.polled.set(folder, now);
    }
    this.cursor += per;
  }
}

/** A folder's files by their modification time and size (empty when it cannot be read). */
function stamp(folder: string): Stamp {
  const out: Stamp = new Map();
  let names: string[];
  try {
    // A folder not there is the common case (a glob's folder not created yet): asked without an
    // error thrown, which costs ten times the stat.
    if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) return out;
    names = readdirSync(folder).slice(0, MAX_POLLED_ENTRIES);
  } catch {
    return out;
  }
  for (const name of names) {
    try {
      const st = statSync(join(folder, name), { throwIfNoEntry: false });
      if (st?.isFile()) out.set(name, `${st.mtimeMs}:${st.size}`);
    } catch {
      // a loop of links, no permission: not a file to compare
    }
  }
  return out;
}

/**
 * A folder and its subfolders, breadth first, skipping folders named in `ignore` and links (a loop
 * of links never ends a walk), at most `limit`.
 */
export function foldersBelow(root: string, ignore: Set<string>, limit: number): string[] {
  const out: string[] = [];
  const queue = [root];
  while (queue.length > 0 && out.length < limit) {
    const folder = queue.shift()!;
    out.push(folder);
    try {
      for (const entry of readdirSync(folder, { withFileTypes: true }))
        if (entry.isDirectory() && !ignore.has(entry.name)) queue.push(join(folder, entry.name));
    } catch {
      // gone, or not readable: nothing below it to watch
    }
  }
  return out;
}

/** The files directly in a folder, at most `limit`. */
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
