/**
 * Limits on what one request may ask, so that its cost is bounded (docs/limits.md lists them, with
 * what a client sees when it passes one: INVALID_INPUT naming the limit). Each can be changed in
 * config.json under `limits`, by its snake_case name, within its range: the floor keeps the product
 * usable, the ceiling keeps one request from holding the database or the memory of a server.
 */
interface LimitRule {
  value: number;
  min: number;
  max: number;
}

const RULES = {
  /** Characters of one path or pattern as given (before normalisation). */
  pathInputChars: { value: 4_096, min: 256, max: 65_536 },
  /** Characters of one normalised path or pattern. */
  pathChars: { value: 1_024, min: 256, max: 8_192 },
  /** Segments (`a/b/c` has 3) of one path or pattern. */
  pathSegments: { value: 128, min: 16, max: 1_024 },
  /** Globstar segments in one pattern (consecutive ones count once). */
  globstars: { value: 4, min: 1, max: 16 },
  /** `*`, `?` and `[…]` in one pattern, outside `**`. */
  wildcards: { value: 32, min: 4, max: 256 },
  /** Alternatives one pattern's `{a,b}` groups expand to. */
  braceAlternatives: { value: 64, min: 1, max: 1_024 },
  /** Paths or patterns in one claim or check. */
  filesPerRequest: { value: 500, min: 1, max: 10_000 },
  /** States the overlap search of two patterns may visit before it answers "overlapping" to be safe. */
  overlapStates: { value: 20_000, min: 1_000, max: 1_000_000 },
  /** Steps of glob work (matches of paths, overlap searches) one request may take in all; past it, the rest counts as meeting. */
  globStepsPerRequest: { value: 4_000_000, min: 100_000, max: 1_000_000_000 },
  /** Lines added plus removed beyond which a diff between versions is not computed. */
  diffEdits: { value: 2_000, min: 100, max: 50_000 },
  /** Characters of an id a client passes (session, claim, message, work item…). */
  idChars: { value: 200, min: 36, max: 1_000 },
  /** Characters of a session name. */
  nameChars: { value: 100, min: 10, max: 1_000 },
  /** Characters of a claim's intent. */
  intentChars: { value: 2_000, min: 100, max: 100_000 },
  /** Characters of a message, a release summary or a review's response or comment. */
  messageChars: { value: 10_000, min: 100, max: 1_000_000 },
  /** Characters of a title (decision, work item, suggestion). */
  titleChars: { value: 300, min: 20, max: 10_000 },
  /** Characters of a description or explanation (decision, project, work item, suggestion). */
  descriptionChars: { value: 20_000, min: 100, max: 1_000_000 },
  /** Characters of a search query. */
  queryChars: { value: 500, min: 20, max: 10_000 },
  /** Characters of a work item's content, or of a suggestion's current or suggested content (review toolset). */
  workContentChars: { value: 1_000_000, min: 1_000, max: 5_000_000 },
  /** Suggestions in one review; items in any other list a client passes (repos, dependencies). */
  listItems: { value: 100, min: 10, max: 10_000 },
  /** Conflicts (and stale claims) listed in one answer; a count says how many more there are. */
  listedConflicts: { value: 20, min: 1, max: 1_000 },
  /** Paths one notification lists; a count says how many more there are. */
  notifiedPaths: { value: 20, min: 1, max: 1_000 },
  /** Tracked files searched for a real file where two claimed patterns meet. */
  trackedFilesSearched: { value: 50_000, min: 0, max: 1_000_000 },
  /** Claims one page of `collab_claims_list` holds when the client does not say. */
  listedClaims: { value: 25, min: 1, max: 200 },
  /** Characters of a client session id (longer ones are taken as none). */
  clientSessionIdChars: { value: 256, min: 36, max: 4_096 },
  /** Characters of a shell command the hooks read for files it would delete or move. */
  shellCommandChars: { value: 100_000, min: 1_000, max: 1_000_000 },
} satisfies Record<string, LimitRule>;

export type LimitName = keyof typeof RULES;

/** The limits in force: the defaults, or what config.json's `limits` set (see `applyLimits`). */
export const LIMITS = Object.fromEntries(Object.entries(RULES).map(([k, r]) => [k, r.value])) as Record<
  LimitName,
  number
>;

/** A limit's key in config.json's `limits`: `pathChars` is `path_chars`. */
export function limitKey(name: LimitName): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** How a message names a limit: "at most 128, limits.path_segments". */
export function atMost(name: LimitName): string {
  return `at most ${LIMITS[name]}, limits.${limitKey(name)}`;
}

/** Every limit with its default and range, for docs and doctor. */
export function limitRules(): Array<{ name: LimitName; key: string } & LimitRule> {
  return (Object.keys(RULES) as LimitName[]).map((name) => ({ name, key: limitKey(name), ...RULES[name] }));
}

/**
 * Problems with config.json's `limits` object (unknown keys, values out of range), one per key;
 * empty when it is fine.
 */
export function checkLimits(raw: unknown): string[] {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return ['"limits" must be an object of limit names and numbers'];
  const byKey = new Map(limitRules().map((r) => [r.key, r]));
  const problems: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const rule = byKey.get(key);
    if (!rule) problems.push(`unknown limit "limits.${key}" (see docs/limits.md)`);
    else if (!Number.isInteger(value) || (value as number) < rule.min || (value as number) > rule.max)
      problems.push(`"limits.${key}" must be a whole number from ${rule.min} to ${rule.max}`);
  }
  return problems;
}

/** Puts config.json's `limits` (already checked) in force for this process; the rest keep their defaults. */
export function applyLimits(values: Record<string, number>): void {
  for (const rule of limitRules()) LIMITS[rule.name] = values[rule.key] ?? rule.value;
}
