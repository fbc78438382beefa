import { describe, expect, it } from 'vitest';
import { SampleBuilder } from '../envs/sample.ts';
import { InputError } from '../errors.ts';
import { METRIC_NAMES, METRIC_NAMESPACES, METRICS } from './glossary.ts';
import { formatHeaderLine, formatMetricsLine, formatSampleLine, globalStep, type MetricsRecord, parseMetricsLog, sampleRecord } from './jsonl.ts';
import { MemoryMetricsLogger } from './logger.ts';

const rec = (step: number, metrics: MetricsRecord['metrics'], phase: MetricsRecord['phase'] = 'rl'): MetricsRecord => ({
  phase,
  step,
  time_s: step * 0.5,
  metrics,
});

describe('metric glossary', () => {
  it('every metric is namespaced, has a unit and a one-line doc', () => {
    for (const name of METRIC_NAMES) {
      const [ns, rest] = name.split('/');
      expect(METRIC_NAMESPACES as readonly string[]).toContain(ns);
      expect(rest).toMatch(/^[a-z][a-z0-9_]*$/);
      const def = METRICS[name];
      expect(def.doc.length, name).toBeGreaterThan(15);
      expect(def.doc, name).not.toContain('\n');
      expect(def.unit).toBeTruthy();
    }
    for (const needed of [
      'rollout/reward',
      'rollout/success',
      'policy/kl',
      'policy/entropy',
      'policy/clip_frac',
      'critic/value_loss',
      'critic/explained_var',
      'perf/tokens_per_s',
    ])
      expect(METRIC_NAMES).toContain(needed);
    for (const ns of METRIC_NAMESPACES)
      expect(
        METRIC_NAMES.some((n) => n.startsWith(`${ns}/`)),
        ns,
      ).toBe(true);
  });
});

describe('metrics.jsonl', () => {
  const recipe = { name: 'tiny', seed: 1 };

  it('round-trips records, including NaN and ±Infinity', () => {
    const records = [
      rec(0, { 'sft/loss': 2.5 }, 'sft'),
      rec(1, { 'rollout/reward': 0.25, 'policy/kl': Number.NaN, 'policy/grad_norm': Infinity }),
      rec(1, { 'eval/held_out_success': 0.1 }, 'eval'),
    ];
    const text = formatHeaderLine(recipe) + records.map(formatMetricsLine).join('');
    expect(text.split('\n')[0]).toBe('{"kind":"recipe","format":"horizon.metrics/1","recipe":{"name":"tiny","seed":1}}');
    expect(text).toContain('"policy/kl":"NaN"');
    const log = parseMetricsLog(text);
    expect(log.header.recipe).toEqual(recipe);
    expect(log.records).toEqual(records);
    expect(log.tornTail).toBe(false);
    expect(log.completeBytes).toBe(new TextEncoder().encode(text).length);
  });

  it('ignores a torn last line and says where the complete lines end', () => {
    const whole = formatHeaderLine(recipe) + formatMetricsLine(rec(1, { 'rollout/reward': 1 }));
    const torn = `${whole}{"kind":"metrics","phase":"rl","st`;
    const log = parseMetricsLog(torn);
    expect(log.tornTail).toBe(true);
    expect(log.records).toHaveLength(1);
    expect(log.completeBytes).toBe(new TextEncoder().encode(whole).length);
  });

  it('a damaged line in the middle is an InputError naming the file and line', () => {
    const text = `${formatHeaderLine(recipe)}not json\n${formatMetricsLine(rec(1, {}))}`;
    expect(() => parseMetricsLog(text, 'runs/x/metrics.jsonl')).toThrow(InputError);
    expect(() => parseMetricsLog(text, 'runs/x/metrics.jsonl')).toThrow(/^runs\/x\/metrics.jsonl line 2 is not valid JSON; /);
    expect(() => parseMetricsLog('{"kind":"metrics"}\n')).toThrow(/line 1 is not a horizon.metrics\/1 recipe header/);
    expect(() => parseMetricsLog('')).toThrow(/line 1 is missing/);
    const unknown = `${formatHeaderLine(recipe)}{"kind":"metrics","phase":"rl","step":1,"time_s":0,"metrics":{"rollout/rewrd":1}}\n`;
    expect(() => parseMetricsLog(unknown)).toThrow(/line 2 is not a valid metrics record \(metric "rollout\/rewrd" is not defined/);
  });

  it('refuses metric names the glossary does not define, and bad steps', () => {
    expect(() => formatMetricsLine(rec(1, { 'policy/made_up': 1 } as MetricsRecord['metrics']))).toThrow(
      /metric "policy\/made_up" is not defined in metrics\/glossary.ts/,
    );
    expect(() => formatMetricsLine(rec(-1, {}))).toThrow(/step must be a non-negative integer/);
    expect(() => formatMetricsLine({ ...rec(1, {}), phase: 'warmup' as 'rl' })).toThrow(/phase must be one of sft, rl, eval/);
  });
});

describe('MemoryMetricsLogger', () => {
  it('keeps copies of records and gives series per metric', async () => {
    const logger = new MemoryMetricsLogger({ name: 'tiny' });
    const metrics = { 'rollout/reward': 0.5 };
    await logger.log(rec(1, metrics));
    metrics['rollout/reward'] = 9;
    await logger.log(rec(2, { 'rollout/reward': 0.75, 'policy/kl': 0.01 }));
    await logger.log(rec(2, { 'eval/held_out_success': 0.3 }, 'eval'));
    expect(logger.series('rollout/reward')).toEqual([
      [1, 0.5],
      [2, 0.75],
    ]);
    expect(logger.series('eval/held_out_success', 'rl')).toEqual([]);
    await logger.close();
    await expect(logger.log(rec(3, {}))).rejects.toThrow(/after close/);
  });
});

describe('global_step', () => {
  it('is SFT step s → s, RL iteration k (or the eval after it) → sft.steps + k, written after step and read back', () => {
    expect([globalStep('sft', 7, 300), globalStep('eval', 0, 300), globalStep('rl', 1, 300), globalStep('eval', 5, 300)]).toEqual([7, 300, 301, 305]);
    const line = formatMetricsLine({ ...rec(2, {}), global_step: 302 });
    expect(line).toMatch(/^\{"kind":"metrics","phase":"rl","step":2,"global_step":302,"time_s":1,/);
    const recipe = { name: 'x', sft: { steps: 300 } };
    expect(parseMetricsLog(formatHeaderLine(recipe) + line).records[0].global_step).toBe(302);
    expect(() => formatMetricsLine({ ...rec(2, {}), global_step: -1 })).toThrow(/global_step must be a non-negative integer/);
  });

  it('is derived from the header for a log written before it existed', () => {
    const recipe = { name: 'x', sft: { steps: 300 } };
    const text = formatHeaderLine(recipe) + formatMetricsLine(rec(4, {}, 'sft')) + formatMetricsLine(rec(0, {}, 'eval')) + formatMetricsLine(rec(3, {}));
    expect(parseMetricsLog(text).records.map((r) => r.global_step)).toEqual([4, 300, 303]);
  });
});

describe('samples.jsonl records', () => {
  it('carries roles per token and per-token channels', () => {
    const b = new SampleBuilder({ seed: 5, rolloutId: 2, groupId: 1 }, '1+2=', [1, 11, 2, 12]);
    b.addAction([3, 0], [-0.1, -0.2], '3', 'eos');
    b.addReward(1);
    const sample = b.finish({ status: 'completed' });
    const record = sampleRecord(
      sample,
      { phase: 'rl', step: 4 },
      { pieces: ['1', '+', '2', '=', '3', '<eos>'], channels: { advantage: [0, 0, 0, 0, 0.5, Number.NaN] } },
    );
    expect(record).toMatchObject({
      roles: 'ppppaa',
      kinds: 'ppppaa',
      reward: 1,
      rolloutId: 2,
      groupId: 1,
      step: 4,
      channels: { advantage: [0, 0, 0, 0, 0.5, 'NaN'] },
    });
    expect(JSON.parse(formatSampleLine(record))).toEqual(record);
    expect(() => sampleRecord(sample, { phase: 'rl', step: 4 }, { channels: { value: [1, 2] } })).toThrow(/channel "value" has 2 values for 6 tokens/);
  });

  it('writes each token’s kind, which roles cannot tell apart', () => {
    const b = new SampleBuilder({ seed: 1, rolloutId: 0, groupId: 0 }, 'q', [1], { carried: [7, 8] });
    b.addAction([3], [-0.5], 'x', 'stop', 'summary');
    b.addObservation([4, 5], 'ok', 'fabricated');
    b.addAction([6, 0], [-0.1, -0.2], 'y', 'eos');
    const record = sampleRecord(b.finish({ status: 'completed' }), { phase: 'rl', step: 1 });
    expect(record.kinds).toBe('pccsffaa');
    expect(record.roles).toBe('pppaooaa');
  });
});
