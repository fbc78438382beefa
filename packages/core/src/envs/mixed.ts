// The mixed arithmetic task's environment: each episode is one skill's episode (addition or
// subtraction), chosen from its seed, and its sample is tagged with that skill in `meta.task`.
// The tag is what multi-teacher distillation routes a prompt to its expert by
// (docs/algorithms/distillation.md), and what evaluation groups held-out success by. Its verifier
// is the episode's skill's own, found by the same tag.

import type { ActionEnding, Environment, EpisodeStart, StepOutcome } from './environment.ts';
import type { Trajectory, Verification, Verifier } from './verifier.ts';

/** The skills the arithmetic tasks are made of; a sample's `meta.task` is one of them. */
export const SKILL_TAGS = ['addition', 'subtraction'] as const;
export type SkillTag = (typeof SKILL_TAGS)[number];

export class MixedEnv implements Environment {
  readonly name = 'mix';
  readonly verifier: Verifier;
  private active: Environment | undefined;

  /** `route(seed)` says which skill an episode of that seed is, and the seed its skill's environment takes. */
  constructor(
    private readonly envs: Readonly<Record<SkillTag, Environment>>,
    private readonly route: (seed: number) => { tag: SkillTag; seed: number },
  ) {
    this.verifier = {
      name: 'mix',
      score: (trajectory: Trajectory): Promise<Verification> | Verification => {
        const tag = trajectory.info.task;
        if (tag !== 'addition' && tag !== 'subtraction') throw new RangeError(`a mixed episode's info.task must be a skill tag, got ${JSON.stringify(tag)}`);
        return envs[tag].verifier.score(trajectory);
      },
    };
  }

  async reset(seed: number): Promise<EpisodeStart> {
    const { tag, seed: own } = this.route(seed);
    this.active = this.envs[tag];
    const start = await this.active.reset(own);
    return { ...start, info: { ...start.info, task: tag } };
  }

  async step(action: string, ending: ActionEnding): Promise<StepOutcome> {
    const active = this.active;
    if (!active) throw new Error('MixedEnv.step called before reset (or after the episode ended)');
    return active.step(action, ending);
  }

  async close(): Promise<void> {
    const active = this.active;
    this.active = undefined;
    await active?.close();
  }
}
