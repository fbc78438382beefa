// The mixed arithmetic task's environment: each episode is one skill's episode (addition or
// subtraction), chosen from its seed, and its sample is tagged with that skill in `meta.task`.
// The tag is what multi-teacher distillation routes a prompt to its expert by
// (docs/algorithms/distillation.md), and what evaluation groups held-out success by.

import type { ActionEnding, Environment, StepResult } from './environment.ts';

/** The skills the arithmetic tasks are made of; a sample's `meta.task` is one of them. */
export const SKILL_TAGS = ['addition', 'subtraction'] as const;
export type SkillTag = (typeof SKILL_TAGS)[number];

export class MixedEnv implements Environment {
  readonly name = 'mix';
  readonly stopStrings: readonly string[] = [];
  private active: { tag: SkillTag; env: Environment } | undefined;

  /** `route(seed)` says which skill an episode of that seed is, and the seed its skill's environment takes. */
  constructor(
    private readonly envs: Readonly<Record<SkillTag, Environment>>,
    private readonly route: (seed: number) => { tag: SkillTag; seed: number },
  ) {}

  async reset(seed: number): Promise<string> {
    const { tag, seed: own } = this.route(seed);
    this.active = { tag, env: this.envs[tag] };
    return this.active.env.reset(own);
  }

  async step(action: string, ending: ActionEnding): Promise<StepResult> {
    const active = this.active;
    if (!active) throw new Error('MixedEnv.step called before reset (or after the episode ended)');
    const result = await active.env.step(action, ending);
    if (result.done) this.active = undefined;
    return { ...result, info: { ...result.info, task: active.tag } };
  }
}
