// Unified diffs for the simulated git: `git diff` of the overlay against the base, `git show` of a
// commit. Lines are aligned by a longest-common-subsequence table over the part between the common
// prefix and suffix; when that part is larger than MAX_TABLE_CELLS (the table's cost grows as the
// product of the two lengths), it is shown as one replaced block instead, still a valid diff.
// Hunks carry three lines of context, as `git diff` does by default.

import type { WorkBudget } from '../limits.ts';
import { linesOf } from './files.ts';

export const MAX_TABLE_CELLS = 4_000_000;
const CONTEXT = 3;

type Edit = { op: ' ' | '-' | '+'; line: string };

function edits(a: string[], b: string[], work: WorkBudget): Edit[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: Edit[] = a.slice(0, start).map((line) => ({ op: ' ', line }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  if (n * m > MAX_TABLE_CELLS) {
    for (const line of midA) out.push({ op: '-', line });
    for (const line of midB) out.push({ op: '+', line });
  } else {
    work.charge(n * m);
    // lcs[i * (m + 1) + j]: the longest common subsequence of midA[i..] and midB[j..].
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * (m + 1) + j] = midA[i] === midB[j] ? lcs[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        out.push({ op: ' ', line: midA[i++] });
        j++;
      } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1])) out.push({ op: '-', line: midA[i++] });
      else out.push({ op: '+', line: midB[j++] });
    }
  }
  for (const line of a.slice(endA)) out.push({ op: ' ', line });
  return out;
}

/**
 * The diff of one file (`before`/`after` undefined when it is added/deleted), with git's header;
 * `path` is shown relative to the repository root. Empty when nothing changed.
 */
export function unifiedDiff(path: string, before: string | undefined, after: string | undefined, work: WorkBudget): string {
  if (before === after) return '';
  const a = linesOf(before ?? '');
  const b = linesOf(after ?? '');
  const list = edits(a, b, work);
  let text = `diff --git a/${path} b/${path}\n`;
  if (before === undefined) text += 'new file mode 100644\n';
  if (after === undefined) text += 'deleted file mode 100644\n';
  text += `--- ${before === undefined ? '/dev/null' : `a/${path}`}\n+++ ${after === undefined ? '/dev/null' : `b/${path}`}\n`;
  // Group changes into hunks: a change plus CONTEXT lines either side, merging hunks that touch.
  const changed = list.map((e, k) => (e.op === ' ' ? -1 : k)).filter((k) => k >= 0);
  let k = 0;
  while (k < changed.length) {
    const from = Math.max(0, changed[k] - CONTEXT);
    let to = changed[k];
    while (k + 1 < changed.length && changed[k + 1] - to <= 2 * CONTEXT) to = changed[++k];
    to = Math.min(list.length - 1, to + CONTEXT);
    k++;
    let oldStart = 1;
    let newStart = 1;
    for (let e = 0; e < from; e++) {
      if (list[e].op !== '+') oldStart++;
      if (list[e].op !== '-') newStart++;
    }
    const hunk = list.slice(from, to + 1);
    const oldCount = hunk.filter((e) => e.op !== '+').length;
    const newCount = hunk.filter((e) => e.op !== '-').length;
    text += `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@\n`;
    for (const e of hunk) text += `${e.op}${e.line}\n`;
  }
  return text;
}
