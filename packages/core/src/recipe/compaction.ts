// The recipe's compaction section as the episode runner takes it, and its cross-field checks.
// `rl.compaction.enabled` false (the default) gives no compaction options at all, so a recipe that
// never mentions compaction runs exactly as before it existed.

import type { CompactionOptions } from '../envs/compaction.ts';
import type { FieldIssue } from './checks.ts';
import type { Recipe } from './schema.ts';

/** The runner's compaction options (RolloutLimits.compaction), or undefined when compaction is off. */
export function compactionOf(r: Recipe): CompactionOptions | undefined {
  const { enabled, ...options } = r.rl.compaction;
  return enabled ? options : undefined;
}

/** The same rules as envs/compaction.ts checkCompaction, each naming the field to change. */
export function compactionChecks(r: Recipe): FieldIssue[] {
  const c = r.rl.compaction;
  if (!c.enabled) return [];
  const issues: FieldIssue[] = [];
  const at = 'rl.compaction';
  if (c.minThreshold > c.maxThreshold)
    issues.push({ path: `${at}.minThreshold`, message: `must not exceed ${at}.maxThreshold (${c.maxThreshold}), got ${c.minThreshold}` });
  if (c.minThreshold <= r.rl.maxNewTokens)
    issues.push({
      path: `${at}.minThreshold`,
      message: `must exceed rl.maxNewTokens (${r.rl.maxNewTokens}): the runner compacts once length + maxNewTokens passes it, got ${c.minThreshold}`,
    });
  const room = c.maxThreshold + 1 + c.summaryTokens;
  if (c.summariser === 'policy' && room > r.model.contextLength)
    issues.push({
      path: `${at}.maxThreshold`,
      message: `must leave room for <summary> and ${c.summaryTokens} summary tokens in model.contextLength (${r.model.contextLength}): at most ${r.model.contextLength - 1 - c.summaryTokens}, got ${c.maxThreshold}`,
    });
  if (c.summariser === 'deterministic' && !c.trainSummaries)
    issues.push({ path: `${at}.trainSummaries`, message: 'has no effect with the deterministic summariser (nothing is sampled to train); leave it true' });
  return issues;
}
