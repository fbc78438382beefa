import { describe, expect, it } from 'vitest';
import { WorkBudget } from '../limits.ts';
import { unifiedDiff } from './unified-diff.ts';

const diff = (before: string | undefined, after: string | undefined) => unifiedDiff('f.txt', before, after, new WorkBudget(1e9));
const lines = (n: number, change?: number) => Array.from({ length: n }, (_, k) => (k === change ? 'CHANGED' : `line ${k + 1}`)).join('\n') + '\n';

describe('unified diff', () => {
  it('is empty when nothing changed', () => {
    expect(diff('a\n', 'a\n')).toBe('');
  });

  it('shows one changed line with three lines of context', () => {
    expect(diff(lines(10), lines(10, 4))).toBe(
      'diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+CHANGED\n line 6\n line 7\n line 8\n',
    );
  });

  it('splits far-apart changes into hunks and merges near ones', () => {
    const before = lines(30);
    const after = before.replace('line 2\n', 'two\n').replace('line 28\n', 'twenty-eight\n');
    expect(diff(before, after).match(/^@@.*@@$/gm)).toEqual(['@@ -1,5 +1,5 @@', '@@ -25,6 +25,6 @@']);
    const near = before.replace('line 2\n', 'two\n').replace('line 6\n', 'six\n');
    expect(diff(before, near).match(/^@@.*@@$/gm)).toEqual(['@@ -1,9 +1,9 @@']);
  });

  it('marks added and deleted files', () => {
    expect(diff(undefined, 'x\n')).toBe('diff --git a/f.txt b/f.txt\nnew file mode 100644\n--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,1 @@\n+x\n');
    expect(diff('x\n', undefined)).toBe('diff --git a/f.txt b/f.txt\ndeleted file mode 100644\n--- a/f.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n');
  });

  it('aligns insertions and deletions by their common lines', () => {
    const body = diff('a\nb\nc\nd\n', 'a\nc\nd\ne\n').split('@@\n')[1];
    expect(body).toBe(' a\n-b\n c\n d\n+e\n');
  });
});
