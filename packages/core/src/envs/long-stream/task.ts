// LongStream as a trainer task (envs/tasks.ts): its recipe config, vocabulary, limits, seeds,
// evaluation sets and SFT demonstrations. Seeds are the shared streams (seeds.ts) salted with the
// task's own word. The held-out set is drawn from the training lengths and removed from training
// and SFT by value; the OOD set has longer streams (oodMinChunks–oodMaxChunks), so more windows.

import type { Vocabulary } from '../environment.ts';
import { episodeSeed, mixSeed } from '../seeds.ts';
import type { EvalSizes, EvalSplit, Task, TaskIssue, TaskLimits } from '../tasks.ts';
import { honestDemonstration } from './demo.ts';
import { LONG_STREAM_PROMPT, LongStreamEnv } from './env.ts';
import { type ChunkRange, distinctLongStreams, longStream, streamCount, streamKey } from './stream.ts';

export interface LongStreamConfig {
  minChunks: number;
  maxChunks: number;
  oodMinChunks: number;
  oodMaxChunks: number;
}

/**
 * The characters of the prompt, the tool call and its results, and the specials of tool calls and
 * summaries. `<unk>` stays: a broken call's error message uses characters outside the set.
 */
export const LONG_STREAM_VOCABULARY: Vocabulary = {
  characters: ['\n', ' ', ':', ...'0123456789', ...'abcdefghijklmnopqrstuvwxyz'],
  specialTokens: ['<eos>', '<tool_call>', '</tool_call>', '<tool_result>', '</tool_result>', '<summary>', '</summary>'],
};

const LONG_STREAM_SALT = 0x1057_0001;
/** Salts an SFT example's seed into the choice of which of its segments it demonstrates. */
const SEGMENT_PICK_SALT = 0x1057_0002;

const trainRange = (c: LongStreamConfig): ChunkRange => ({ minChunks: c.minChunks, maxChunks: c.maxChunks });
const oodRange = (c: LongStreamConfig): ChunkRange => ({ minChunks: c.oodMinChunks, maxChunks: c.oodMaxChunks });

/** Tokens, as hidden-test-fs counts them: the fixed prompt, and the longest action, the `next` call (6: each tag is one token). */
export function longStreamLimits(): TaskLimits {
  return { maxPromptChars: LONG_STREAM_PROMPT.length, maxResponseChars: 6 };
}

export function longStreamChecks(c: LongStreamConfig, sizes: EvalSizes): TaskIssue[] {
  const at = 'task.longStream';
  const issues: TaskIssue[] = [];
  if (c.minChunks > c.maxChunks) issues.push({ path: `${at}.minChunks`, message: `must not exceed ${at}.maxChunks (${c.maxChunks}), got ${c.minChunks}` });
  if (c.oodMinChunks > c.oodMaxChunks)
    issues.push({ path: `${at}.oodMinChunks`, message: `must not exceed ${at}.oodMaxChunks (${c.oodMaxChunks}), got ${c.oodMinChunks}` });
  if (c.oodMinChunks <= c.maxChunks)
    issues.push({
      path: `${at}.oodMinChunks`,
      message: `must exceed ${at}.maxChunks (${c.maxChunks}) so OOD streams are longer than any trained, got ${c.oodMinChunks}`,
    });
  if (issues.length > 0) return issues;
  const trainSpace = streamCount(trainRange(c));
  if (sizes.heldOutSize > trainSpace / 2)
    issues.push({
      path: 'eval.heldOutSize',
      message: `must be at most half of the ${trainSpace} long streams of ${c.minChunks}–${c.maxChunks} chunks, got ${sizes.heldOutSize}`,
    });
  const oodSpace = streamCount(oodRange(c));
  if (sizes.oodSize > oodSpace) issues.push({ path: 'eval.oodSize', message: `must be at most the ${oodSpace} OOD long streams, got ${sizes.oodSize}` });
  return issues;
}

export function longStreamTask(c: LongStreamConfig, sizes: EvalSizes): Task {
  const train = trainRange(c);
  const ood = oodRange(c);
  const salted = (seed: number) => mixSeed(seed, LONG_STREAM_SALT);
  const heldOut = distinctLongStreams(sizes.heldOutSize, train, (i) => salted(episodeSeed(0, 'heldOut', i)));
  const oodSet = distinctLongStreams(sizes.oodSize, ood, (i) => salted(episodeSeed(0, 'ood', i)));
  const excluded: ReadonlySet<string> = new Set(heldOut.streams.map(streamKey));
  const evalSeeds: Record<EvalSplit, readonly number[]> = { heldOut: heldOut.seeds, ood: oodSet.seeds };
  return {
    name: 'long-stream',
    tags: [],
    vocabulary: LONG_STREAM_VOCABULARY,
    limits: longStreamLimits(),
    createEnv: (split) => new LongStreamEnv((seed) => longStream(seed, split === 'ood' ? ood : train, split === 'train' ? excluded : undefined)),
    trainSeed: (runSeed, index) => salted(episodeSeed(runSeed, 'train', index)),
    evalSeeds: (split) => evalSeeds[split],
    sftExample: (runSeed, index) => {
      const seed = salted(episodeSeed(runSeed, 'sft', index));
      return honestDemonstration(longStream(seed, train, excluded), seed, mixSeed(seed, SEGMENT_PICK_SALT));
    },
  };
}
