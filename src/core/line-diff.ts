/**
 * Unified diffs of two texts, line by line (longest common subsequence). For showing what a
 * command would change (`init --dry-run`) and, later, what changed between versions of a text.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

function diffOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: length of the LCS of a[i..] and b[j..]
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) ops.push({ kind: '-', line: a[i++]! });
    else ops.push({ kind: '+', line: b[j++]! });
  }
  while (i < n) ops.push({ kind: '-', line: a[i++]! });
  while (j < m) ops.push({ kind: '+', line: b[j++]! });
  return ops;
}

/** A unified diff (`---`/`+++` headers, `@@` hunks with `context` lines around changes); '' when equal. */
export function unifiedDiff(
  before: string,
  after: string,
  fromName: string,
  toName: string,
  context = 3,
): string {
  const ops = diffOps(lines(before), lines(after));
  if (ops.every((o) => o.kind === ' ')) return '';
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.kind === ' ') k++;
    if (k >= ops.length) break;
    let start = Math.max(0, k - context);
    let end = k;
    // Extend the hunk while changes are within 2 × context of each other.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === ' ') next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    let aLine = 1;
    let bLine = 1;
    for (let x = 0; x < start; x++) {
      if (ops[x]!.kind !== '+') aLine++;
      if (ops[x]!.kind !== '-') bLine++;
    }
    const hunk = ops.slice(start, stop);
    const aCount = hunk.filter((o) => o.kind !== '+').length;
    const bCount = hunk.filter((o) => o.kind !== '-').length;
    out.push(
      `@@ -${aCount === 0 ? aLine - 1 : aLine},${aCount} +${bCount === 0 ? bLine - 1 : bLine},${bCount} @@`,
    );
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = stop;
    start = stop;
  }
  return `${out.join('\n')}\n`;
}
