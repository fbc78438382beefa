// `horizon export --run DIR --dataset …`: a run's logged rollouts as the JSONL rows other trainers
// read, one rollout segment per line, every row carrying the trajectory fields of trajectory.ts
// (token ids, roles, reward, per-token channels with its null rules) next to the format's own:
//
//   trl-prompt-completion  TRL's standard prompt-completion form: "prompt", "completion" (text,
//                          specials by name). SFTTrainer trains on the completion; in a multi-turn
//                          rollout the completion holds the observations too (use token_roles or
//                          trl-messages to mask them)
//   trl-messages           TRL's conversational form: "messages" [{role, content}] — the prompt as
//                          "user", each action as "assistant" (text the environment saw, <eos> left
//                          out), an observation after a tool call (a turn that ended at a stop string)
//                          as "tool", any other observation as "user"
//   kto                    TRL KTOTrainer's unpaired form: "prompt", "completion", "label" (true when
//                          reward ≥ 1, the success mark `horizon sample` prints)
//   verl                   verl's RLHFDataset fields: "data_source", "prompt" (chat messages),
//                          "ability", "reward_model" {style, ground_truth}, "extra_info" (index,
//                          split, the completion and reward); verl reads parquet, which pyarrow
//                          writes from these rows (docs/export.md has the lines).
//                          samples.jsonl does not hold a task's answer, so ground_truth is null.
//
// What the rows come from is what the run logged: by default the trainer writes the first 4 rollouts
// of each RL iteration and of each evaluation to samples.jsonl (core/train/trainer.ts), not every
// rollout, and subsampleNote says so with the run's own numbers; a run with the recipe field
// log.allSamples (and every `horizon serve --train` run) logs every RL rollout, and the note says that.

import type { SampleRecord } from '@horizon/core';
import { type Trajectory, trajectoryOf } from './trajectory.ts';

export const DATASETS = ['trl-prompt-completion', 'trl-messages', 'kto', 'verl'] as const;
export type DatasetKind = (typeof DATASETS)[number];

/** The reward at or above which a KTO row is labelled desirable. */
export const KTO_DESIRABLE_REWARD = 1;

interface Message {
  role: 'user' | 'assistant' | 'tool';
  content: string;
}

function messagesOf(record: SampleRecord): Message[] {
  const messages: Message[] = [{ role: 'user', content: record.prompt }];
  for (const turn of record.turns) {
    messages.push({ role: 'assistant', content: turn.action });
    if (turn.observation !== undefined) messages.push({ role: turn.ending === 'stop' ? 'tool' : 'user', content: turn.observation });
  }
  return messages;
}

/** The trajectory fields every row ends with (after the format's own). */
function shared(t: Trajectory): Record<string, unknown> {
  const { prompt: _p, completion: _c, ...rest } = t;
  return rest;
}

/** One row of `kind`, or undefined when the record has no pieces (a samples.jsonl from before they were logged). */
export function datasetRow(kind: DatasetKind, record: SampleRecord, index: number, task: string): Record<string, unknown> | undefined {
  const t = trajectoryOf(record);
  if (!t) return undefined;
  switch (kind) {
    case 'trl-prompt-completion':
      return { prompt: t.prompt, completion: t.completion, ...shared(t) };
    case 'trl-messages':
      return { messages: messagesOf(record), ...shared(t) };
    case 'kto':
      return { prompt: t.prompt, completion: t.completion, label: t.reward !== null && t.reward >= KTO_DESIRABLE_REWARD, ...shared(t) };
    case 'verl':
      return {
        data_source: `horizon/${task}`,
        prompt: [{ role: 'user', content: record.prompt }],
        ability: task,
        reward_model: { style: 'rule', ground_truth: null },
        extra_info: { index, split: record.phase, response: t.completion, ...shared(t) },
      };
  }
}

/** Records of `phase` ('all' keeps every phase), in file order. */
export function recordsOfPhase(records: readonly SampleRecord[], phase: SampleRecord['phase'] | 'all'): SampleRecord[] {
  return phase === 'all' ? [...records] : records.filter((r) => r.phase === phase);
}

/** Whether samples.jsonl holds every rollout of every logged RL iteration (a run with `log.allSamples`). */
export function loggedEveryRollout(records: readonly SampleRecord[], rolloutsPerIteration: number | undefined): boolean {
  const rl = records.filter((r) => r.phase === 'rl');
  if (rl.length === 0 || rolloutsPerIteration === undefined) return false;
  const perIteration = new Map<number, Set<number>>();
  for (const r of rl) perIteration.set(r.step, (perIteration.get(r.step) ?? new Set()).add(r.rolloutId));
  return [...perIteration.values()].every((ids) => ids.size === rolloutsPerIteration);
}

/**
 * A sentence saying how much of the run the rows are, from the run's own recipe: rollouts per RL
 * iteration it sampled (promptsPerIteration × groupSize) against those samples.jsonl logged.
 */
export function subsampleNote(records: readonly SampleRecord[], rolloutsPerIteration: number | undefined): string {
  const rl = records.filter((r) => r.phase === 'rl');
  const iterations = new Set(rl.map((r) => r.step));
  const logged = new Set(rl.map((r) => `${r.step}:${r.rolloutId}`)).size;
  const over = `${iterations.size} iteration${iterations.size === 1 ? '' : 's'}`;
  if (loggedEveryRollout(records, rolloutsPerIteration))
    return `samples.jsonl holds every RL rollout (log.allSamples): ${logged} over ${over}, all ${rolloutsPerIteration} of each iteration; every held-out episode of each evaluation is logged too, as phase eval.`;
  const per = iterations.size > 0 ? logged / iterations.size : 0;
  const of = rolloutsPerIteration === undefined ? '' : ` of the ${rolloutsPerIteration} each iteration sampled`;
  return `samples.jsonl is a subsample: Horizon logs the first rollouts of each RL iteration and evaluation, not all of them (here ${logged} RL rollouts over ${over}, ${per.toFixed(1)} per iteration${of}); the recipe field log.allSamples logs them all.`;
}
