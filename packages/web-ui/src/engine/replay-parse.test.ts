// Replay files as `horizon train` writes them (core's own formatters), and the damaged ones a user
// may hand the page.

import { formatHeaderLine, formatMetricsLine, formatSampleLine, resolveRecipe, type SampleRecord } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import { classifyReplayTexts, contentKind, parseReplay, parseSamplesLog } from './replay-parse.ts';

const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
const metricsText =
  formatHeaderLine(recipe) +
  formatMetricsLine({ phase: 'rl', step: 0, time_s: 1, metrics: { 'rollout/reward': 0.25 } }) +
  formatMetricsLine({ phase: 'rl', step: 1, time_s: 2, metrics: { 'rollout/reward': 0.5, 'policy/kl': Number.NaN } });

const sample: SampleRecord = {
  phase: 'rl',
  step: 1,
  rolloutId: 3,
  groupId: 1,
  seed: 7,
  prompt: '1+2=',
  turns: [{ action: '3', ending: 'eos' }],
  reward: 1,
  done: true,
  tokens: [1, 2, 3, 4, 5, 6],
  pieces: ['1', '+', '2', '=', '3', '<eos>'],
  roles: 'ppppaa',
  channels: { advantage: [0, 0, 0, 0, 0.5, Number.NaN] },
};

describe('replay parsing', () => {
  it('reads metrics and samples, decoding NaN written as a string', () => {
    const parsed = parseReplay([
      { name: 'samples.jsonl', text: formatSampleLine(sample) },
      { name: 'metrics.jsonl', text: metricsText },
    ]);
    expect(parsed.metrics.records.map((r) => r.metrics['rollout/reward'])).toEqual([0.25, 0.5]);
    expect(parsed.metrics.records[1].metrics['policy/kl']).toBeNaN();
    expect(parsed.samples).toHaveLength(1);
    expect(parsed.samples[0].channels.advantage.slice(0, 5)).toEqual([0, 0, 0, 0, 0.5]);
    expect(parsed.samples[0].channels.advantage[5]).toBeNaN();
    expect(parsed.remarks).toEqual([]);
  });

  it('tells the files apart by content when the names do not say', () => {
    const { metrics, samples } = classifyReplayTexts([
      { name: 'a.jsonl', text: metricsText },
      { name: 'b.jsonl', text: formatSampleLine(sample) },
    ]);
    expect(metrics?.name).toBe('a.jsonl');
    expect(samples?.name).toBe('b.jsonl');
    expect(() =>
      classifyReplayTexts([
        { name: 'metrics.jsonl', text: metricsText },
        { name: 'metrics (1).jsonl', text: metricsText },
      ]),
    ).toThrow(/two metrics files/);
  });

  it('requires metrics.jsonl and remarks on a missing samples file or a torn last line', () => {
    expect(() => parseReplay([{ name: 'samples.jsonl', text: formatSampleLine(sample) }])).toThrow(/no metrics.jsonl among samples.jsonl/);
    const parsed = parseReplay([{ name: 'metrics.jsonl', text: `${metricsText}{"kind":"metr` }]);
    expect(parsed.metrics.records).toHaveLength(2);
    expect(parsed.remarks.join(' ')).toMatch(/last line was cut off.*No samples.jsonl/);
  });

  it('names the file and line of a damaged sample', () => {
    const good = formatSampleLine(sample);
    expect(() => parseSamplesLog(`${good}not json\n`, 'run/samples.jsonl')).toThrow(/run\/samples.jsonl line 2 is not valid JSON/);
    expect(() => parseSamplesLog(formatSampleLine({ ...sample, roles: 'pppp' }))).toThrow(/line 1 has roles "pppp", expected one of p\/a\/o per token \(6\)/);
    expect(() => parseSamplesLog(formatSampleLine({ ...sample, kinds: 'ppppax' }))).toThrow(
      /line 1 has kinds "ppppax", expected one of p\/a\/o\/u\/f\/s\/c per token \(6\)/,
    );
    expect(parseSamplesLog(formatSampleLine({ ...sample, kinds: 'ppppas' })).samples).toHaveLength(1);
    expect(() => parseSamplesLog(formatSampleLine({ ...sample, status: 'finished' as 'completed' }))).toThrow(
      /line 1 has status "finished", expected one of completed, truncated, aborted, failed/,
    );
    expect(() => parseSamplesLog(formatSampleLine({ ...sample, segmentIndex: 1.5 }))).toThrow(/has segmentIndex 1.5/);
    expect(() => parseSamplesLog(formatSampleLine({ ...sample, failure: { source: 'gpu', message: 'x' } as never }))).toThrow(/has a failure that is not/);
    expect(() => parseSamplesLog(formatSampleLine({ ...sample, channels: { kl: [1, 2] } }))).toThrow(/channel "kl" with 2 values for 6 tokens/);
    expect(() => parseSamplesLog(formatSampleLine({ ...sample, step: -1 }))).toThrow(/has step -1/);
    expect(parseSamplesLog(`${good}{"phase":`).tornTail).toBe(true);
  });

  it('reads a sub-agent context with its branch and parent, and refuses one whose tree fields disagree', () => {
    const child = { ...sample, branch: '0.1', parent: { branch: '0', segmentIndex: 0, turn: 1 } };
    expect(parseSamplesLog(formatSampleLine(sample) + formatSampleLine(child)).samples.map((s) => s.branch)).toEqual([undefined, '0.1']);
    expect(() => parseSamplesLog(formatSampleLine({ ...child, parent: undefined }))).toThrow(/has a branch without a parent/);
    expect(() => parseSamplesLog(formatSampleLine({ ...child, branch: '0' }))).toThrow(/has branch "0", expected a sub-agent's like "0.1"/);
    expect(() => parseSamplesLog(formatSampleLine({ ...child, branch: '0.x' }))).toThrow(/has branch "0.x"/);
    expect(() => parseSamplesLog(formatSampleLine({ ...child, parent: { branch: '0', segmentIndex: 0, turn: 0 } }))).toThrow(/has a parent that is not/);
    expect(() => parseSamplesLog(formatSampleLine({ ...child, branch: '0.1.2' }))).toThrow(/has branch 0.1.2 whose parent is given as 0/);
  });

  it('skips a damaged line in the middle and names it; refuses a file that is mostly damage', () => {
    const lines = metricsText.split('\n');
    const damaged = [lines[0], '{"kind":"metr', lines[1], lines[2], ''].join('\n');
    const parsed = parseReplay([{ name: 'metrics.jsonl', text: damaged }]);
    expect(parsed.metrics.records).toHaveLength(2);
    expect(parsed.remarks[0]).toBe('metrics.jsonl: 1 damaged line was skipped (line 2 is not valid JSON); the other rows are shown.');
    expect(() => parseReplay([{ name: 'metrics.jsonl', text: [lines[0], 'x', 'y', 'z', lines[1], ''].join('\n') }])).toThrow(
      /metrics.jsonl has too many damaged lines to open \(line 2 is not valid JSON; line 3 is not valid JSON; line 4 is not valid JSON\)/,
    );
  });

  it('reads swapped names by content, with a remark', () => {
    const remarks: string[] = [];
    const { metrics, samples } = classifyReplayTexts(
      [
        { name: 'metrics.jsonl', text: formatSampleLine(sample) },
        { name: 'samples.jsonl', text: metricsText },
      ],
      remarks,
    );
    expect(metrics?.name).toBe('samples.jsonl');
    expect(samples?.name).toBe('metrics.jsonl');
    expect(remarks).toHaveLength(2);
    expect(contentKind('not json')).toBeUndefined();
  });
});
