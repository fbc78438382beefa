// Shareable state in the URL (docs/ui.md §11): the view in the hash, the playground's recipe preset,
// seed and edited fields, and the open run in the query. A link reproduces what the sender saw.
//   ?recipe=tiny&seed=7&set=rl.lambda%3D0.9&run=<id>&cmp=<id>&cmp=<id>&walk=<json>#gae

export const VIEWS = [
  'dashboard',
  'completions',
  'playground',
  'loop',
  'compare',
  'ppo',
  'groups',
  'kto',
  'distill',
  'monitor',
  'compaction',
  'opid',
  'genac',
  'opid-lab',
  'genac-lab',
  'antihack-lab',
  'compaction-lab',
  'gae',
  'home',
] as const;
export type ViewName = (typeof VIEWS)[number];
/** The views the tab bar lists, in order; the home page is reached from the header's title instead. */
export const TAB_VIEWS: readonly ViewName[] = VIEWS.filter((v) => v !== 'home');

export interface UrlState {
  view: ViewName;
  /** Preset name for the playground recipe. */
  recipe: string;
  /** Seed override; undefined = the preset's. */
  seed: number | undefined;
  /** Edited fields as `path=value`, in edit order (the CLI's --set options). */
  sets: string[];
  /** The saved run shown, by id ("bundled" for the shipped replay). */
  run: string | undefined;
  /** Runs overlaid in the compare view, by id; empty = the shipped PPO, GRPO and RLOO replays. */
  compare: string[];
  /** The walkthroughs' controls, one JSON object by walkthrough kind (state/walk-url.ts); absent = their defaults. */
  walk?: string;
}

export function parseUrlState(href: string, defaultRecipe: string): UrlState {
  const url = new URL(href);
  const hash = url.hash.replace(/^#/, '');
  const seedText = url.searchParams.get('seed');
  const seed = seedText !== null && /^\d+$/.test(seedText) ? Number(seedText) : undefined;
  return {
    view: (VIEWS as readonly string[]).includes(hash) ? (hash as ViewName) : 'dashboard',
    recipe: url.searchParams.get('recipe') || defaultRecipe,
    seed,
    sets: url.searchParams.getAll('set').filter((s) => s.includes('=')),
    run: url.searchParams.get('run') ?? undefined,
    compare: url.searchParams.getAll('cmp'),
    walk: url.searchParams.get('walk') ?? undefined,
  };
}

/** The URL for `state`, keeping `href`'s origin and path. */
export function formatUrlState(href: string, state: UrlState): string {
  const url = new URL(href);
  const params = new URLSearchParams();
  params.set('recipe', state.recipe);
  if (state.seed !== undefined) params.set('seed', String(state.seed));
  for (const s of state.sets) params.append('set', s);
  if (state.run) params.set('run', state.run);
  for (const id of state.compare ?? []) params.append('cmp', id);
  if (state.walk) params.set('walk', state.walk);
  url.search = params.toString();
  url.hash = state.view;
  return url.toString();
}

const SAFE = /^[A-Za-z0-9._\-+=/:,@]+$/;
const shellQuote = (word: string): string => (SAFE.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** The equivalent `horizon train` command line: the preset, the seed and every edited field. */
export function cliCommand(recipe: string, seed: number | undefined, sets: readonly string[]): string {
  const words = ['horizon', 'train', '--recipe', recipe];
  if (seed !== undefined) words.push('--set', `seed=${seed}`);
  for (const s of sets) words.push('--set', s);
  return words.map(shellQuote).join(' ');
}
