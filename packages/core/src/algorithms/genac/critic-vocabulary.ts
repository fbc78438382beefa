// GenAC's generative critic reads and writes text: the actor's prompt, the actor's size and win
// rate, a short reasoning and a value. Its vocabulary is the task's (so the actor's prompt encodes as
// it is) with the few characters of the critic's own text appended after the task's characters: the
// GenAC paper's critic is a language model, not a value head. The critic is a GPT of its own with a
// language-model head, sized by model.critic.*, always freshly initialised: its embedding table has
// rows the policy's does not, so the policy's trunk cannot be copied into it name for name as PPO's
// critic is.

import type { Vocabulary } from '../../envs/environment.ts';
import { taskVocabulary } from '../../envs/tasks.ts';
import type { GptConfig } from '../../model/config.ts';
import { criticSizes } from '../../recipe/checks.ts';
import type { Recipe } from '../../recipe/schema.ts';
import { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';

/**
 * Characters of the critic's own text: `L` and `D` (the actor's layers and width), `W` (its win
 * rate), `?` (a win rate not measured yet), `|` (the end of the critic's prompt), `c` (the carry flag
 * of the scripted reasoning). The value slot reuses `=` and the digits, which every arithmetic task has.
 */
export const CRITIC_CHARACTERS: readonly string[] = ['L', 'D', 'W', '?', '|', 'c'];

/** The task's vocabulary with the critic's characters appended (those it lacks), in that order. */
export function criticVocabulary(task: Recipe['task']): Vocabulary {
  const own = taskVocabulary(task);
  const added = CRITIC_CHARACTERS.filter((c) => !own.characters.includes(c));
  return { ...own, characters: [...own.characters, ...added] };
}

/** The critic's tokenizer: encodes its prompts and decodes what it wrote. */
export function criticTokenizer(task: Recipe['task']): CharTokenizer {
  return new CharTokenizer(criticVocabulary(task));
}

/** The generative critic's GPT: model.critic's sizes (0 = as the policy), the recipe's context, a language-model head over the critic's vocabulary. */
export function generativeCriticConfig(recipe: Recipe): GptConfig {
  return { vocabSize: criticTokenizer(recipe.task).vocabSize, contextLength: recipe.model.contextLength, ...criticSizes(recipe), head: 'lm' };
}
