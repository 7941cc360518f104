/**
 * Limits on what one request may ask, so that its cost is bounded (docs/limits.md lists them, with
 * what a client sees when it passes one: INVALID_INPUT naming the limit).
 */
export const LIMITS = {
  /** Characters of one path or pattern as given (before normalisation). */
  pathInputChars: 4_096,
  /** Characters of one normalised path or pattern. */
  pathChars: 1_024,
  /** Segments (`a/b/c` has 3) of one path or pattern. */
  pathSegments: 128,
  /** Globstar segments in one pattern (consecutive ones count once). */
  globstars: 4,
  /** `*`, `?` and `[…]` in one pattern, outside `**`. */
  wildcards: 32,
  /** Alternatives one pattern's `{a,b}` groups expand to. */
  braceAlternatives: 64,
  /** States the overlap search of two patterns may visit before it answers "overlapping" to be safe. */
  overlapStates: 20_000,
  /** Lines added plus removed beyond which a diff between versions is not computed. */
  diffEdits: 2_000,
  /** Characters of a work item's content (review toolset). */
  workContentChars: 1_000_000,
  /** Conflicts (and stale claims) listed in one answer; a count says how many more there are. */
  listedConflicts: 20,
  /** Paths one notification lists; a count says how many more there are. */
  notifiedPaths: 20,
  /** Tracked files searched for a real file where two claimed patterns meet. */
  trackedFilesSearched: 50_000,
  /** Claims `collab_claims_list` answers with at most (newest first). */
  listedClaims: 25,
  /** Characters of a client session id (longer ones are taken as none). */
  clientSessionIdChars: 256,
  /** Characters of a shell command the hooks read for files it would delete or move. */
  shellCommandChars: 100_000,
} as const;
