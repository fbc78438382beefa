// `horizon sample --checkpoint DIR`: a few rollouts from a checkpoint's policy, sampled and scored
// exactly as its next RL iteration would, with each action token shaded by a per-token channel
// (advantage by default; value, logprob or kl) — credit assignment made visible in the terminal.
// `--samples PATH` prints the rollouts a run logged instead (no GPU). A single-turn completion is
// one token strip; a multi-turn trace (core's trace view) is printed turn by turn (trace-print.ts).
// `--json` prints one trace per line instead, for scripts.

import {
  declaresRole,
  echo,
  groupSegments,
  InputError,
  isSingleTurn,
  loadTeachers,
  type SampleRecord,
  segmentOfRecord,
  segmentOfSample,
  type Trace,
  Trainer,
  traceOf,
} from '@horizon/core';
import { type Command, type CommandContext, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';
import { openCheckpoint } from '../run/open-checkpoint.ts';
import { checkRecipeFits } from '../run/recipe-source.ts';
import { readSamplesLog } from '../run/samples-log.ts';
import { RunDirTeacherSource } from '../run/teacher-source.ts';
import { legend, renderStrip, type StripToken } from '../run/token-shading.ts';
import { flatLine, traceLines } from '../run/trace-print.ts';

const CHANNELS = ['advantage', 'value', 'logprob', 'kl'] as const;
type Channel = (typeof CHANNELS)[number];

/** One rollout to print: its trace and, when it has numbers, the channel's value at (segment input, position). */
interface Shown {
  trace: Trace;
  valueAt?: (input: number, position: number) => number;
}

interface PrintSettings {
  channel: Channel;
  color: boolean;
  json: boolean;
  out: (line: string) => void;
}

const rollouts = (n: number) => `${n} rollout${n === 1 ? '' : 's'}`;

function printRollouts(shown: readonly Shown[], settings: PrintSettings, title: string): void {
  const { channel, color, json, out } = settings;
  if (json) {
    // Each segment carries the channel's value per token (0 off action tokens), so a script needs nothing else.
    for (const { trace, valueAt } of shown) {
      const segments = trace.segments.map((s) => ({ ...s, ...(valueAt ? { [channel]: s.pieces.map((_, p) => valueAt(s.input, p)) } : {}) }));
      out(JSON.stringify({ ...trace, segments }));
    }
    return;
  }
  let scale = 0;
  for (const { trace, valueAt } of shown)
    for (const s of trace.segments)
      for (const span of s.spans)
        if (!span.masked && valueAt) for (let p = span.start; p < span.end; p++) scale = Math.max(scale, Math.abs(valueAt(s.input, p)) || 0);
  out(title);
  out(shown.some((r) => r.valueAt) ? legend(channel, scale || 1, color) : `no ${channel} was logged for these rollouts; tokens are not shaded`);
  const width = process.stdout.columns || 100;
  for (const { trace, valueAt } of shown) {
    // A failed rollout is printed in full, so its failure is said.
    if (isSingleTurn(trace) && !trace.failure) {
      const [segment] = trace.segments;
      const tokens: StripToken[] = segment.pieces.map((text, p) => ({
        text,
        role: segment.spans.find((s) => s.start <= p && p < s.end)?.masked ? 'p' : 'a',
        value: valueAt ? valueAt(segment.input, p) : 0,
      }));
      const strip = valueAt ? renderStrip(tokens, scale || 1, color) : flatLine(segment, color);
      out(`${trace.reward >= 1 ? '✓' : '✗'} reward ${trace.reward.toFixed(2)}  ${strip}`);
    } else {
      out('');
      for (const line of traceLines(trace, { width, color, scale: scale || 1, ...(valueAt ? { valueAt } : {}) })) out(line);
    }
  }
}

/**
 * The newest `n` rollouts a run logged in `phase`, each with its logged channel (when the run logged
 * it). By default the training rollouts, as the web UI's table opens: they carry the channels.
 */
async function fromLog(path: string, n: number, phase: string | undefined, settings: PrintSettings): Promise<number> {
  const { file, records: all } = await readSamplesLog(path);
  if (all.length === 0) throw new InputError('run', `${echo(file)} holds no rollouts yet.`);
  const chosen = phase ?? (all.some((r) => r.phase === 'rl') ? 'rl' : all[all.length - 1].phase);
  const records = all.filter((r) => r.phase === chosen);
  if (records.length === 0)
    throw new InputError('run', `${echo(file)} holds no ${chosen} rollouts (it has ${[...new Set(all.map((r) => r.phase))].join(', ')}).`);
  const groups = groupSegments(records, (r) => `${r.phase}:${r.step}:${r.rolloutId}`).slice(-n);
  const shown = groups.map((group: SampleRecord[]): Shown => {
    const values = group.map((r) => r.channels?.[settings.channel]);
    const trace = traceOf(group.map(segmentOfRecord));
    if (values.some((v) => v === undefined)) return { trace };
    const numbers = values.map((v) => (v ?? []).map((x) => (typeof x === 'number' ? x : Number(x))));
    return { trace, valueAt: (input, p) => numbers[input][p] };
  });
  const where = [...new Set(groups.map((g) => `${g[0].phase} step ${g[0].step}`))].join(', ');
  printRollouts(shown, settings, `${rollouts(shown.length)} logged in ${file} (${where})`);
  return EXIT.ok;
}

async function fromCheckpoint(dir: string, n: number, settings: PrintSettings): Promise<number> {
  const { channel } = settings;
  // A missing, partial or corrupt checkpoint is an InputError: main.ts prints it and exits 2.
  const { checkpoint, where } = await openCheckpoint(dir);
  const saved = checkpoint.recipe;
  if (channel === 'value' && saved.rl.algorithm !== 'ppo')
    throw new UsageError(`--channel value needs a critic; ${saved.name} trains with ${saved.rl.algorithm}.`);
  // One group per prompt, n prompts: the batch the next iteration would draw, cut to n prompts.
  const recipe = { ...saved, rl: { ...saved.rl, promptsPerIteration: Math.ceil(n / saved.rl.groupSize), minibatches: 1 } };
  const gpu = await acquireGpu();
  try {
    // A distillation run scores with its teachers: read them as training did.
    const teachers = declaresRole(recipe, 'teacher') ? await loadTeachers(recipe, new RunDirTeacherSource()) : undefined;
    checkRecipeFits(recipe, gpu, teachers);
    const trainer = new Trainer(gpu, recipe, teachers ? { teachers } : {});
    trainer.restore(checkpoint);
    const batch = await trainer.sampleBatch();
    const { T } = batch.rows;
    const source = { advantage: batch.advantages, value: batch.scores.values, logprob: batch.scores.oldLogp, kl: undefined }[channel];
    const perToken = (b: number, p: number): number => {
      // Position p − 1 predicts token p (train/rows.ts).
      const i = b * T + p - 1;
      if (channel === 'kl') return batch.scores.oldLogp[i] - batch.scores.refLogp[i];
      return source ? source[i] : 0;
    };
    // Row b of the scored batch is the b-th trained sample; a failed or dropped rollout has no row and no numbers.
    const rowOf = new Map(batch.trained.map((i, b) => [i, b]));
    const decode = (id: number) => trainer.tokenizer.decode([id]);
    const groups = groupSegments([...batch.samples.keys()], (i) => batch.samples[i].rolloutId).slice(0, n);
    const shown = groups.map((group): Shown => {
      const trace = traceOf(group.map((i) => segmentOfSample(batch.samples[i], decode)));
      const rows = group.map((i) => rowOf.get(i));
      if (rows.some((b) => b === undefined)) return { trace };
      return { trace, valueAt: (input, p) => (p > 0 && batch.samples[group[input]].actionMask[p] ? perToken(rows[input] as number, p) : 0) };
    });
    printRollouts(
      shown,
      settings,
      `${rollouts(shown.length)} from ${where} (after iteration ${checkpoint.step}), sampled at temperature ${recipe.rl.temperature}`,
    );
    return EXIT.ok;
  } finally {
    gpu.destroyDevice();
  }
}

export const sample: Command = {
  name: 'sample',
  summary: 'sample a few rollouts from a checkpoint (or read a run’s logged ones) and shade each action token by its advantage (or value, log-prob, KL)',
  flags: {
    checkpoint: { type: 'string', description: 'a run directory (its newest checkpoint) or a checkpoints/step-N directory', valueName: 'dir' },
    samples: { type: 'string', description: 'print the rollouts a run logged instead (a run directory or its samples.jsonl; no GPU)', valueName: 'path' },
    n: { type: 'string', description: 'rollouts to show (default 6; with --samples, the newest ones)', valueName: 'count' },
    phase: { type: 'string', description: 'with --samples: rl or eval rollouts (default rl, when the run logged any)', valueName: 'name' },
    channel: { type: 'string', description: `what shades the tokens: ${CHANNELS.join(', ')} (default advantage)`, valueName: 'name' },
    plain: { type: 'boolean', description: 'no colours: print each action token with its number' },
    json: { type: 'boolean', description: 'print one trace per line as JSON (spans, tool calls, segments, status, reward, the channel per token)' },
  },
  async run({ flags, out }: CommandContext) {
    if ((flags.checkpoint === undefined) === (flags.samples === undefined))
      throw new UsageError('give one of --checkpoint DIR (sample from a checkpoint) or --samples PATH (print a run’s logged rollouts).');
    const n = flags.n === undefined ? 6 : Number(flags.n);
    if (!Number.isInteger(n) || n < 1 || n > 256) throw new UsageError(`--n must be an integer in [1, 256], got "${echo(String(flags.n))}".`);
    const channel = (flags.channel ?? 'advantage') as Channel;
    if (!CHANNELS.includes(channel)) throw new UsageError(`--channel must be one of ${CHANNELS.join(', ')}, got "${echo(String(flags.channel))}".`);
    const settings: PrintSettings = { channel, color: !flags.plain && !flags.json && Boolean(process.stdout.isTTY), json: Boolean(flags.json), out };
    const phase = flags.phase as string | undefined;
    if (phase !== undefined && (flags.samples === undefined || !['rl', 'eval'].includes(phase)))
      throw new UsageError(`--phase takes rl or eval, with --samples; got "${echo(String(phase))}"${flags.samples === undefined ? ' without --samples' : ''}.`);
    return flags.samples !== undefined ? fromLog(flags.samples as string, n, phase, settings) : fromCheckpoint(flags.checkpoint as string, n, settings);
  },
};
