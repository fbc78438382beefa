// The generative critic's prompt: the actor's prompt, then the actor's state — its size and its
// current win rate — so one critic can value the same problem differently for a stronger or a
// weaker actor (GenAC conditions its critic on the actor; this miniature renders the state as text).
//
//   critic prompt := actor prompt "L" layers "D" width "W" win "|"
//   e.g. "12+34=L2D32W37|"  (a 2-layer, width-32 actor that solved 37% of its last batch)
//
// The win rate is the percentage, rounded to an integer, of the previous iteration's rollouts that
// succeeded; before the first iteration it is unknown and written "W?". It is never this batch's own
// success: a value that saw its batch's outcomes would leak them into the baseline.

/** The actor as the critic sees it. */
export interface ActorState {
  layers: number;
  width: number;
  /** Fraction of the previous iteration's rollouts that succeeded, in [0, 1]; undefined before any. */
  winRate: number | undefined;
}

/** The character that ends the critic's prompt: the critic's own text starts after it. */
export const CRITIC_PROMPT_END = '|';

export function renderCriticPrompt(actorPrompt: string, actor: ActorState): string {
  for (const [name, v] of [
    ['layers', actor.layers],
    ['width', actor.width],
  ] as const)
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`the actor's ${name} must be a positive integer, got ${v}`);
  const { winRate } = actor;
  if (winRate !== undefined && !(winRate >= 0 && winRate <= 1)) throw new RangeError(`the actor's win rate must be in [0, 1], got ${winRate}`);
  const win = winRate === undefined ? '?' : String(Math.round(100 * winRate));
  return `${actorPrompt}L${actor.layers}D${actor.width}W${win}${CRITIC_PROMPT_END}`;
}

/** Characters of the longest critic prompt for actor prompts of up to `actorPromptChars` characters. */
export function longestCriticPrompt(actorPromptChars: number, actor: Pick<ActorState, 'layers' | 'width'>): number {
  return renderCriticPrompt('x'.repeat(actorPromptChars), { ...actor, winRate: 1 }).length;
}
