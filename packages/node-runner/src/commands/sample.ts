// `horizon sample --checkpoint DIR`: a few rollouts from a checkpoint's policy, sampled and scored
// exactly as its next RL iteration would, printed as token strips shaded by a per-token channel
// (advantage by default; value, logprob or kl) — credit assignment made visible in the terminal.

import { declaresRole, echo, loadTeachers, Trainer } from '@horizon/core';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';
import { openCheckpoint } from '../run/open-checkpoint.ts';
import { checkRecipeFits } from '../run/recipe-source.ts';
import { RunDirTeacherSource } from '../run/teacher-source.ts';
import { legend, renderStrip, type StripToken } from '../run/token-shading.ts';

const CHANNELS = ['advantage', 'value', 'logprob', 'kl'] as const;
type Channel = (typeof CHANNELS)[number];

export const sample: Command = {
  name: 'sample',
  summary: 'sample a few rollouts from a checkpoint and shade each token by its advantage (or value, log-prob, KL)',
  flags: {
    checkpoint: { type: 'string', description: 'a run directory (its newest checkpoint) or a checkpoints/step-N directory', valueName: 'dir' },
    n: { type: 'string', description: 'rollouts to show (default 6)', valueName: 'count' },
    channel: { type: 'string', description: `what shades the tokens: ${CHANNELS.join(', ')} (default advantage)`, valueName: 'name' },
    plain: { type: 'boolean', description: 'no colours: print each action token with its number' },
  },
  async run({ flags, out }) {
    if (flags.checkpoint === undefined) throw new UsageError('--checkpoint DIR is required (a run directory or a checkpoints/step-N directory).');
    const n = flags.n === undefined ? 6 : Number(flags.n);
    if (!Number.isInteger(n) || n < 1 || n > 256) throw new UsageError(`--n must be an integer in [1, 256], got "${echo(String(flags.n))}".`);
    const channel = (flags.channel ?? 'advantage') as Channel;
    if (!CHANNELS.includes(channel)) throw new UsageError(`--channel must be one of ${CHANNELS.join(', ')}, got "${echo(String(flags.channel))}".`);
    // A missing, partial or corrupt checkpoint is an InputError: main.ts prints it and exits 2.
    const { checkpoint, where } = await openCheckpoint(flags.checkpoint as string);
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
      const color = !flags.plain && Boolean(process.stdout.isTTY);
      // Row b of the scored batch is the b-th trained sample (failed and dropped rollouts have no row).
      const shown = batch.trained.slice(0, n).map((i) => batch.samples[i]);
      let scale = 0;
      shown.forEach((s, b) => {
        for (let p = 1; p < s.tokens.length; p++) if (s.actionMask[p]) scale = Math.max(scale, Math.abs(perToken(b, p)));
      });
      out(`${shown.length} rollouts from ${where} (after iteration ${checkpoint.step}), sampled at temperature ${recipe.rl.temperature}`);
      out(legend(channel, scale || 1, color));
      shown.forEach((s, b) => {
        const tokens: StripToken[] = s.tokens.map((id, p) => ({
          text: trainer.tokenizer.decode([id]),
          role: s.actionMask[p] ? 'a' : s.observationMask[p] ? 'o' : 'p',
          value: p > 0 && s.actionMask[p] ? perToken(b, p) : 0,
        }));
        out(`${s.reward >= 1 ? '✓' : '✗'} reward ${s.reward.toFixed(2)}  ${renderStrip(tokens, scale || 1, color)}`);
      });
      return EXIT.ok;
    } finally {
      gpu.destroyDevice();
    }
  },
};
