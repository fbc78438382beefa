// The critic's supervised data (GenAC's first training step): critic data from a stronger source,
// here exact Monte-Carlo values of the actor — each prompt's mean reward over its group of rollouts
// (critic-targets.ts) — written as the critic should write them: a scripted reasoning, then the value
// digit round(10·MC). The reasoning restates one fact about the problem that decides how hard it is
// for a small actor: whether any column carries (addition) or borrows (subtraction), "c1" or "c0".
// The paper's critic data is a stronger model's written judgement; this miniature scripts it, so the
// reasoning is right by construction and only the digit carries the actor's measured skill.

import type { SftExample } from '../../envs/environment.ts';
import { type ActorState, renderCriticPrompt } from './critic-prompt.ts';
import { digitOf, formatCritique } from './value-digit.ts';

/** "c1" when a column of the problem carries (a+b) or borrows (a-b), else "c0". */
export function scriptedReasoning(actorPrompt: string): string {
  const match = /^([0-9]+)([+-])([0-9]+)=$/.exec(actorPrompt);
  if (!match) throw new RangeError(`GenAC's scripted reasoning reads "a+b=" or "a-b=" prompts, got "${actorPrompt}"`);
  const [, a, op, b] = match;
  let carry = 0;
  let any = false;
  for (let i = 1; i <= Math.max(a.length, b.length); i++) {
    const x = Number(a[a.length - i] ?? 0);
    const y = Number(b[b.length - i] ?? 0);
    const column = op === '+' ? x + y + carry : x - y - carry;
    carry = op === '+' ? (column >= 10 ? 1 : 0) : column < 0 ? 1 : 0;
    if (carry) any = true;
  }
  return any ? 'c1' : 'c0';
}

/** The critic's SFT example for one prompt: its critic prompt, then the scripted reasoning and round(10·mcValue). */
export function criticSftExample(actorPrompt: string, actor: ActorState, mcValue: number): SftExample {
  return { prompt: renderCriticPrompt(actorPrompt, actor), completion: formatCritique(scriptedReasoning(actorPrompt), digitOf(mcValue)) };
}
