// The teachers of on-policy distillation (algorithms/distill.ts): frozen policies of other, committed
// runs, and which one scores each prompt. Core never reads a file: a front end implements
// `TeacherSource` (the Node CLI: node-runner/src/run/teacher-source.ts, from run directories) and
// hands the loaded weights to the Trainer; the web UI could pass teachers from IndexedDB the same way.
//
// Routing (multi-teacher distillation, one student merged from experts): each prompt's task tag
// (a mixed task's sample `meta.task`, else the task's one skill) is mapped to a teacher by
// `distill.route` ("addition=1,subtraction=2", teachers counted from 1 in `distill.teachers`).
// Teachers are not checkpointed with the student: the recipe names them, and the checkpoint's
// `extra.teachers` records which checkpoint of each run was loaded.

import type { Gpu } from '@horizon/kernels';
import type { Vocabulary } from '../envs/environment.ts';
import type { SkillTag } from '../envs/mixed.ts';
import type { Sample } from '../envs/sample.ts';
import { sampleSkill, type Task, type TaskConfig, taskSkills, taskVocabulary } from '../envs/tasks.ts';
import { InputError } from '../errors.ts';
import type { GptConfig } from '../model/config.ts';
import { Gpt } from '../model/gpt.ts';
import type { Recipe } from '../recipe/schema.ts';
import type { TeacherRouter } from './rl-context.ts';

/** One teacher as a front end loaded it: the policy of a run's newest committed checkpoint. */
export interface TeacherWeights {
  /** The run it came from, as the recipe names it (a `distill.teachers` entry). */
  run: string;
  /** The checkpoint's RL iteration (0 for a checkpoint taken in SFT). */
  step: number;
  /** The teacher run's task (its vocabulary must be the student's). */
  task: TaskConfig;
  config: GptConfig;
  params: Float32Array;
}

/** Loads a teacher by its `distill.teachers` entry; throws an InputError (one sentence) for anything but a committed run. */
export interface TeacherSource {
  load(run: string): Promise<TeacherWeights>;
}

/** The `distill.teachers` entries, in order. */
export function teacherRuns(recipe: Recipe): string[] {
  return recipe.distill.teachers
    .split(',')
    .map((run) => run.trim())
    .filter((run) => run.length > 0);
}

/**
 * `distill.route` as a map from task tag to a 0-based teacher index; every skill of the task gets
 * one (with a single teacher and no route, all go to it). Returns issues for the recipe checks.
 */
export function parseRoute(recipe: Recipe): { route: Map<SkillTag, number>; issues: string[] } {
  const teachers = teacherRuns(recipe).length;
  const skills = taskSkills(recipe.task);
  const route = new Map<SkillTag, number>();
  const issues: string[] = [];
  for (const pair of recipe.distill.route.split(',').map((p) => p.trim())) {
    if (pair === '') continue;
    const m = /^([a-z][a-z0-9_-]*)=(\d+)$/.exec(pair);
    if (!m) {
      issues.push(`"${pair}" is not tag=N (e.g. addition=1)`);
      continue;
    }
    const [, tag, n] = m;
    if (!(skills as readonly string[]).includes(tag)) {
      issues.push(`names the tag "${tag}", which no prompt of task.env ${recipe.task.env} has (its tags: ${skills.join(', ')})`);
      continue;
    }
    const index = Number(n) - 1;
    // With no teachers named yet (a preset before --set distill.teachers) only the tags can be checked.
    if (teachers > 0 && (index < 0 || index >= teachers)) {
      issues.push(`sends ${tag} to teacher ${n}, but distill.teachers names ${teachers}`);
      continue;
    }
    route.set(tag as SkillTag, index);
  }
  for (const skill of skills) {
    if (route.has(skill)) continue;
    if (teachers === 1) route.set(skill, 0);
    else if (teachers > 1 && issues.length === 0)
      issues.push(`says no teacher for the ${skill} prompts; with ${teachers} teachers every tag needs one (e.g. ${skill}=1)`);
  }
  return { route, issues };
}

function sameVocabulary(a: Vocabulary, b: Vocabulary): boolean {
  return a.characters.join('\u0000') === b.characters.join('\u0000') && a.specialTokens.join(' ') === b.specialTokens.join(' ');
}

/** Refuses a teacher the student cannot be distilled from: another vocabulary or context length. */
export function checkTeacher(recipe: Recipe, teacher: TeacherWeights): void {
  const mine = taskVocabulary(recipe.task);
  const theirs = taskVocabulary(teacher.task);
  if (!sameVocabulary(mine, theirs))
    throw new InputError(
      'run',
      `teacher ${teacher.run} has the vocabulary of task.env ${teacher.task.env} (${theirs.characters.length} characters), but this run's task.env ${recipe.task.env} has ${mine.characters.length}: a teacher must score the student's token ids, so train it on a task with the same vocabulary (for arithmetic: subtraction or mix).`,
    );
  if (teacher.config.contextLength !== recipe.model.contextLength)
    throw new InputError(
      'run',
      `teacher ${teacher.run} has a context of ${teacher.config.contextLength} tokens, but model.contextLength is ${recipe.model.contextLength}: set model.contextLength=${teacher.config.contextLength} or choose a teacher with the student's context.`,
    );
  if (teacher.config.head !== 'lm')
    throw new InputError('run', `teacher ${teacher.run}'s policy has a ${teacher.config.head} head, not a language-model head.`);
}

export const NO_TEACHERS =
  'distill.teachers names no teacher run; distillation needs at least one, e.g. --set distill.teachers=runs/a (a committed run directory).';

/** Every teacher of the recipe, loaded through `source` and checked against the student, in `distill.teachers` order. */
export async function loadTeachers(recipe: Recipe, source: TeacherSource): Promise<TeacherWeights[]> {
  if (teacherRuns(recipe).length === 0) throw new InputError('recipe', NO_TEACHERS);
  const teachers: TeacherWeights[] = [];
  for (const run of teacherRuns(recipe)) {
    const teacher = await source.load(run);
    checkTeacher(recipe, teacher);
    teachers.push(teacher);
  }
  return teachers;
}

/** The teachers on the GPU, frozen, and the routing of samples to them by task tag. */
export class Teachers implements TeacherRouter {
  readonly models: readonly Gpt[];
  private readonly route: Map<SkillTag, number>;

  constructor(
    gpu: Gpu,
    recipe: Recipe,
    private readonly task: Task,
    readonly weights: readonly TeacherWeights[],
  ) {
    const { route, issues } = parseRoute(recipe);
    if (issues.length > 0) throw new InputError('recipe', `distill.route ${issues[0]}.`);
    if (weights.length === 0) throw new InputError('recipe', NO_TEACHERS);
    if (weights.length !== teacherRuns(recipe).length)
      throw new RangeError(`the recipe names ${teacherRuns(recipe).length} teachers (distill.teachers), but ${weights.length} were loaded`);
    for (const teacher of weights) checkTeacher(recipe, teacher);
    this.route = route;
    this.models = weights.map((teacher, k) => Gpt.fromWeights(gpu, teacher.config, teacher.params, `teacher${k + 1}`));
  }

  /** Index (0-based, in distill.teachers order) of the teacher a sample's prompt is routed to. */
  indexFor(sample: Pick<Sample, 'meta'>): number {
    const skill = sampleSkill(sample, this.task);
    const index = this.route.get(skill);
    if (index === undefined) throw new RangeError(`no teacher is routed the ${skill} prompts`);
    return index;
  }

  teacherFor(sample: Sample): Gpt {
    return this.models[this.indexFor(sample)];
  }

  /** What a checkpoint records of them: which checkpoint of which run each teacher was. */
  describe(): { run: string; step: number }[] {
    return this.weights.map(({ run, step }) => ({ run, step }));
  }

  destroy(): void {
    for (const model of this.models) model.destroy();
  }
}
