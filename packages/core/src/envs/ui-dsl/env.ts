// The UI-DSL environment (Environment v2, environment.ts): single-turn. Reset gives the spec's
// prompt (spec.ts) and puts the spec in info; the policy's one action is the program, which ends
// the episode; the verifier — the static or the interactive judge (judges.ts), the recipe's choice —
// scores it afterwards. The policy never sees a render: it writes the program blind, as a model
// writing a web app in one shot does, and the judge is what looks at the page.

import type { ActionEnding, Environment, EpisodeStart, StepOutcome } from '../environment.ts';
import type { Verifier } from '../verifier.ts';
import { InteractiveJudgeVerifier, StaticJudgeVerifier } from './judges.ts';
import type { RenderServer } from './render.ts';
import { SimulatorRenderServer } from './simulator.ts';
import { specPrompt, type UiSpec } from './spec.ts';

export const UI_DSL_JUDGES = ['static', 'interactive'] as const;
export type UiDslJudge = (typeof UI_DSL_JUDGES)[number];

export interface UiDslEnvOptions {
  /** The spec of a seed (the split's generator). */
  spec(seed: number): UiSpec;
  judge: UiDslJudge;
  /** Where the interactive judge renders; default the simulator (platform-free). */
  server?: RenderServer;
}

export class UiDslEnv implements Environment {
  readonly name = 'ui-dsl';
  readonly verifier: Verifier;
  private open = false;

  constructor(private readonly options: UiDslEnvOptions) {
    this.verifier = options.judge === 'static' ? new StaticJudgeVerifier() : new InteractiveJudgeVerifier(options.server ?? new SimulatorRenderServer());
  }

  reset(seed: number): EpisodeStart {
    if (this.open) throw new Error('ui-dsl: reset while an episode is open; close it first');
    this.open = true;
    const spec = this.options.spec(seed);
    return { prompt: specPrompt(spec), info: { spec: { ...spec }, kind: spec.kind, judge: this.options.judge } };
  }

  step(action: string, ending: ActionEnding): StepOutcome {
    if (!this.open) throw new Error('ui-dsl: step before reset (or after close)');
    return { done: true, info: { programChars: action.length, ending } };
  }

  close(): void {
    this.open = false;
  }
}
