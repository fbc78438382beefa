// The GenAC lab (docs/ui.md §24, docs/algorithms/genac.md): core's `add-genac` preset trained live in
// the worker, shrunk to the browser. For each RL iteration's rollouts (all of them are logged), the
// generative critic's written reasoning and value digit — or why core's parser refused it — beside
// the value the baseline took (digit/10, or the fallback: add-genac has no discriminative value
// head, so a malformed critique takes the mean of the well-formed values, 0.5 when none is), the
// prompt's Monte-Carlo value (its group's mean reward, the critic's training target) and the
// rollout's own return G. Everything shown comes from the samples the trainer logged
// (samples.jsonl's `critique`); nothing is recomputed on the page. Below the chosen rollout, the
// probe (genac-probe.ts) cuts it after k answer tokens and asks both critics live on the worker's
// device — the generative critic and the same seed's PPO value head — and retrains either.
// Keyboard: the iteration and rollout pickers are selects, and the table's rows are buttons that
// pick a rollout.

import { h } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { DeviceStatus, ReplaySample } from '../../engine/api.ts';
import type { EngineHandle } from '../../engine/client.ts';
import { fmt, fmtSigned } from '../format.ts';
import { ErrorLine } from '../walk-parts.ts';
import { GenacProbe } from './genac-probe.ts';
import { type LabRun, LabTransport, useLabRun, useLabRuns } from './lab-run.ts';

export const GENAC_LAB_PRESET = 'add-genac';
/**
 * add-genac at browser size: 8 prompts × 8 rollouts, 2 iterations of critic SFT, 1 of REINFORCE,
 * then PPO. The warm start (300 steps at lr 0.01) is what makes some rollouts correct: after 150
 * steps at 0.01, 16 rollouts earned no reward at all, so every Monte-Carlo value was 0; after 300,
 * iteration 1's 64 rollouts averaged 0.20, its groups 0 to 0.75 (horizon train, seed 1).
 */
export const GENAC_LAB_SETS: readonly string[] = [
  'sft.steps=300',
  'sft.lr=0.01',
  'rl.iterations=6',
  'rl.promptsPerIteration=8',
  'rl.groupSize=8',
  'rl.minibatches=1',
  'genac.sftIterations=2',
  'genac.reinforceIterations=1',
  'eval.interval=0',
  'eval.heldOutSize=8',
  'eval.oodSize=8',
  'checkpoint.interval=0',
  'log.allSamples=true',
];

/** What a rollout's critique says, as samples.jsonl records it. */
export interface CritiqueRow {
  sample: ReplaySample;
  answer: string;
  reasoning: string;
  digit: number | null;
  malformed: string | null;
  value: number;
  mc: number;
}

export function critiqueRows(samples: readonly ReplaySample[], iteration: number): CritiqueRow[] {
  return samples
    .filter((s) => s.phase === 'rl' && s.step === iteration && s.critique)
    .map((s) => {
      const c = s.critique as Record<string, unknown>;
      return {
        sample: s,
        answer: s.turns.map((t) => t.action).join(''),
        reasoning: String(c.reasoning ?? ''),
        digit: typeof c.digit === 'number' ? c.digit : null,
        malformed: typeof c.malformed === 'string' ? c.malformed : null,
        value: Number(c.value),
        mc: Number(c.mc),
      };
    });
}

/** The phase of logged iteration `step` (1-based): core's genacPhase of the 0-based iteration. */
function phaseOf(step: number, sets: readonly string[]): string {
  const field = (name: string, fallback: number) => {
    const set = [...sets].reverse().find((s) => s.startsWith(`${name}=`));
    return set ? Number(set.slice(name.length + 1)) : fallback;
  };
  const sft = field('genac.sftIterations', 10);
  const reinforce = field('genac.reinforceIterations', 10);
  const i = step - 1;
  return i < sft ? 'critic SFT on Monte-Carlo values (actor frozen)' : i < sft + reinforce ? 'critic REINFORCE (actor frozen)' : 'PPO on the critic’s baseline';
}

function Critique({ row }: { row: CritiqueRow }) {
  const written = row.digit !== null ? `${row.reasoning}=${row.digit}` : row.reasoning;
  return h(
    'dl',
    { class: 'lab-critique', 'data-testid': 'genac-critique', 'data-rollout': row.sample.rolloutId },
    h('dt', null, 'prompt → the policy’s answer'),
    h('dd', null, h('code', null, row.sample.prompt), ' → ', h('code', null, row.answer || '(empty)')),
    h('dt', null, 'the critic read'),
    h('dd', null, h('code', null, String((row.sample.critique as Record<string, unknown>).prompt ?? ''))),
    h('dt', null, 'the critic wrote'),
    h(
      'dd',
      { 'data-testid': 'genac-written' },
      h('code', null, written === '' ? '(nothing)' : written),
      row.digit !== null ? ` — value digit ${row.digit}` : ` — malformed (${row.malformed}): core’s parser reads no value`,
    ),
    h('dt', null, 'baseline v'),
    h(
      'dd',
      { 'data-testid': 'genac-value', 'data-value': String(row.value) },
      fmt(row.value, 3),
      row.digit !== null
        ? ` = ${row.digit}/10`
        : ' — the fallback: add-genac has no discriminative value head, so a malformed critique takes the mean of the batch’s well-formed values (0.5 when none is)',
    ),
    h('dt', null, 'Monte-Carlo value of the prompt (its group’s mean reward, the critic’s target)'),
    h('dd', { 'data-testid': 'genac-mc', 'data-value': String(row.mc) }, fmt(row.mc, 3)),
    h('dt', null, 'the rollout’s return G (its reward; γ = 1, one turn)'),
    h('dd', { 'data-testid': 'genac-return', 'data-value': String(row.sample.reward) }, fmt(row.sample.reward, 3)),
    h('dt', null, 'advantage before whitening, G − v'),
    h('dd', { 'data-testid': 'genac-advantage', 'data-value': String(row.sample.reward - row.value) }, fmtSigned(row.sample.reward - row.value, 3)),
  );
}

function CritiqueTable({ rows, chosen, onPick }: { rows: CritiqueRow[]; chosen: number; onPick: (i: number) => void }) {
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table', 'data-testid': 'genac-lab-table' },
      h('caption', null, 'Every rollout of the iteration: what the critic wrote, the value it gave, the target and the return'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['rollout', 'group', 'prompt', 'answer', 'critic wrote', 'v', 'MC value', 'G', 'G − v'].map((c) => h('th', { key: c, scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((r, i) =>
          h(
            'tr',
            {
              key: r.sample.rolloutId,
              class: i === chosen ? 'selected' : undefined,
              'data-rollout': r.sample.rolloutId,
              'data-group': r.sample.groupId,
              'data-reward': String(r.sample.reward),
              'data-value': String(r.value),
              'data-mc': String(r.mc),
              'data-digit': r.digit === null ? '' : String(r.digit),
              'data-malformed': r.malformed ?? '',
            },
            h('th', { scope: 'row' }, h('button', { type: 'button', 'aria-pressed': i === chosen, onClick: () => onPick(i) }, `#${r.sample.rolloutId}`)),
            h('td', null, String(r.sample.groupId)),
            h('td', null, h('code', null, r.sample.prompt)),
            h('td', null, h('code', null, r.answer)),
            h(
              'td',
              { class: r.digit !== null ? 'genac-parsed' : 'genac-malformed' },
              r.digit !== null ? `${r.reasoning}=${r.digit}` : `${r.reasoning || '∅'} (${r.malformed})`,
            ),
            h('td', null, fmt(r.value, 2)),
            h('td', null, fmt(r.mc, 2)),
            h('td', null, fmt(r.sample.reward, 2)),
            h('td', null, fmtSigned(r.sample.reward - r.value, 2)),
          ),
        ),
      ),
    ),
  );
}

/** The seeds the seed-sensitivity view offers: the preset's (1) and two more. */
export const GENAC_LAB_SEEDS = [1, 2, 3] as const;

/** The same recipe trained from several seeds: per seed, each iteration's malformed rate, value error and reward. */
function SeedSensitivity({ runs, base, seed }: { runs: Map<string, LabRun>; base: string; seed: number }) {
  const bySeed = GENAC_LAB_SEEDS.map((s) => ({ seed: s, run: runs.get(`${base}\nseed=${s}`) })).filter((r) => r.run?.records.some((x) => x.phase === 'rl'));
  if (bySeed.length === 0) return null;
  const steps = [...new Set(bySeed.flatMap(({ run }) => (run as LabRun).records.filter((r) => r.phase === 'rl').map((r) => r.step)))].sort((a, b) => a - b);
  const cell = (run: LabRun, step: number) => {
    const m = run.records.find((r) => r.phase === 'rl' && r.step === step)?.metrics;
    if (!m) return h('td', { key: step, class: 'note' }, '—');
    return h(
      'td',
      { key: step, 'data-step': step, 'data-value-error': String(m['genac/value_error']), 'data-malformed': String(m['genac/malformed_rate']) },
      `${fmt(m['genac/value_error'] ?? Number.NaN, 2)} · ${fmt(100 * (m['genac/malformed_rate'] ?? Number.NaN), 0)}% · ${fmt(m['rollout/reward'] ?? Number.NaN, 2)}`,
    );
  };
  return h(
    'div',
    { class: 'lab-seeds' },
    h(
      'p',
      { class: 'note' },
      'The same recipe from each seed trained on this page: another seed draws other initial weights, other prompts and other samples, so the spread between rows is how much one run’s critic says about the method. Train another with the seed picker above.',
    ),
    h(
      'div',
      { class: 'lane-wrap' },
      h(
        'table',
        { class: 'lane walk-table', 'data-testid': 'genac-seeds' },
        h('caption', null, 'Seed sensitivity: mean |v − MC| · malformed critiques · reward, per iteration'),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'seed'),
            steps.map((k) => h('th', { key: k, scope: 'col' }, `iteration ${k}`)),
          ),
        ),
        h(
          'tbody',
          null,
          bySeed.map(({ seed: s, run }) =>
            h(
              'tr',
              { key: s, 'data-seed': s, class: s === seed ? 'selected' : undefined },
              h('th', { scope: 'row' }, `${s}${s === seed ? ' (shown)' : ''}`),
              steps.map((k) => cell(run as LabRun, k)),
            ),
          ),
        ),
      ),
    ),
  );
}

export function GenacLab({ engine, device, sets }: { engine: EngineHandle; device: DeviceStatus | null; sets: string[] }) {
  const [seed, setSeed] = useState<number>(GENAC_LAB_SEEDS[0]);
  const base = `genac:${[...GENAC_LAB_SETS, ...sets].join('\n')}`;
  const request = useMemo(() => ({ recipe: GENAC_LAB_PRESET, sets: [...GENAC_LAB_SETS, ...sets, `seed=${seed}`] }), [sets.join('\n'), seed]);
  const { run, busy, error, start, pause } = useLabRun(engine, `${base}\nseed=${seed}`, request, 'genac');
  const [retraining, setRetraining] = useState(false);
  const all = useLabRuns(base);
  const iterations = useMemo(() => [...new Set((run?.samples ?? []).filter((s) => s.phase === 'rl' && s.critique).map((s) => s.step))], [run?.samples]);
  const [picked, setPicked] = useState<number | null>(null);
  const [chosen, setChosen] = useState(0);
  const iteration = picked !== null && iterations.includes(picked) ? picked : (iterations.at(-1) ?? null);
  const rows = useMemo(() => (iteration === null ? [] : critiqueRows(run?.samples ?? [], iteration)), [run?.samples, iteration]);
  const row = rows[Math.min(chosen, rows.length - 1)];
  const metrics = run?.records.find((r) => r.phase === 'rl' && r.step === iteration)?.metrics;
  const blocked = !device
    ? 'Starting the GPU in the worker…'
    : device.kind === 'none'
      ? `The lab trains on WebGPU, and this browser has none (${device.line}).`
      : retraining
        ? 'A critic is retraining; a new run would replace it in the worker, so Train waits.'
        : null;
  return h(
    'section',
    { class: 'walk lab genac-lab', 'aria-label': 'GenAC lab', 'data-iteration': iteration ?? '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'GenAC’s critic is a language model: given the actor’s prompt and state, it writes a short reasoning and a value digit 0–10; digit/10 is the rollout’s baseline, and the actor’s advantage is its return minus it. It learns first by SFT on each prompt’s Monte-Carlo value (the group’s mean reward), then by REINFORCE against it, then keeps a REINFORCE step per PPO iteration.',
      ),
      h(
        'p',
        null,
        'Here core’s ',
        h('code', null, GENAC_LAB_PRESET),
        ' preset trains live on this page’s device, shrunk to the browser (',
        h('code', null, request.sets.join(' ')),
        '). Early critiques are often malformed; watch the malformed rate fall as the critic’s SFT iterations go by.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(
        'label',
        null,
        'Seed ',
        h(
          'select',
          {
            name: 'seed',
            value: seed,
            disabled: run?.state === 'running' || retraining,
            onChange: (e: Event) => setSeed(Number((e.target as HTMLSelectElement).value)),
          },
          GENAC_LAB_SEEDS.map((s) => h('option', { key: s, value: s }, s === 1 ? '1 (the preset’s)' : String(s))),
        ),
      ),
    ),
    h(LabTransport, {
      run,
      busy,
      blocked,
      onStart: start,
      onPause: pause,
      what: 'Train runs the SFT warm start, then RL iterations; the lab fills in after the first.',
    }),
    h(ErrorLine, { error }),
    iteration !== null
      ? h(
          'div',
          { class: 'gae-controls' },
          h(
            'label',
            null,
            'Iteration ',
            h(
              'select',
              { name: 'iteration', value: iteration, onChange: (e: Event) => setPicked(Number((e.target as HTMLSelectElement).value)) },
              iterations.map((k) => h('option', { key: k, value: k }, `${k}: ${phaseOf(k, request.sets)}`)),
            ),
          ),
          h(
            'label',
            null,
            'Rollout ',
            h(
              'select',
              { name: 'rollout', value: Math.min(chosen, rows.length - 1), onChange: (e: Event) => setChosen(Number((e.target as HTMLSelectElement).value)) },
              rows.map((r, i) => h('option', { key: r.sample.rolloutId, value: i }, `#${r.sample.rolloutId} · ${r.sample.prompt}${r.answer}`)),
            ),
          ),
        )
      : null,
    metrics
      ? h(
          'p',
          { class: 'note', 'data-testid': 'genac-lab-metrics' },
          `Iteration ${iteration} (${phaseOf(iteration as number, request.sets)}): malformed ${fmt(100 * (metrics['genac/malformed_rate'] ?? Number.NaN), 0)}% of critiques, fallback value ${fmt(metrics['genac/fallback_value'] ?? Number.NaN, 3)}, mean |v − MC| ${fmt(metrics['genac/value_error'] ?? Number.NaN, 3)}, reward ${fmt(metrics['rollout/reward'] ?? Number.NaN, 3)}.`,
        )
      : null,
    h(SeedSensitivity, { runs: all, base, seed }),
    row ? h(Critique, { row }) : null,
    row && run && iteration !== null ? h(GenacProbe, { engine, run, row, iteration, onBusy: setRetraining }) : null,
    rows.length > 0 ? h(CritiqueTable, { rows, chosen: Math.min(chosen, rows.length - 1), onPick: setChosen }) : null,
  );
}
