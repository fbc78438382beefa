// The home page (#home): what Horizon is in one screen, and where to go from here — the walkthroughs
// on the real kernels, the playground that trains live, the dashboard of a real run. Every card is a
// plain link to its view's URL (state/url-state.ts), so each is shareable and keyboard-reachable.

import { h } from 'preact';
import type { DeviceStatus } from '../engine/api.ts';

interface Card {
  view: string;
  title: string;
  text: string;
}

const WALKTHROUGHS: Card[] = [
  { view: 'ppo', title: 'PPO clipping', text: 'The ratio, the clip range, dual clip: which term of the loss is active for each token, and its gradient.' },
  { view: 'groups', title: 'GRPO & RLOO', text: 'Edit a group of rewards; see z-scores, leave-one-out baselines and why an all-equal group teaches nothing.' },
  { view: 'kto', title: 'KTO & span-KTO', text: 'The reference point z0, desirable against undesirable weights, and preference on spans of a turn.' },
  { view: 'distill', title: 'On-policy distillation', text: 'Per-token reverse KL to a teacher, and routing each prompt to the teacher of its skill.' },
  {
    view: 'monitor',
    title: 'Anti-hack monitor',
    text: 'Type an agent’s shell call: the parse, the rule that fires, the judge’s dry run, the decoy’s output; label flagged calls yourself.',
  },
  {
    view: 'compaction',
    title: 'Compaction',
    text: 'Cut a rollout into segments anywhere: the cross-segment factor on GAE, and which loss reducers do not notice the cut.',
  },
  {
    view: 'opid',
    title: 'OPID’s skill Δ',
    text: 'A real forward pass with and without an injected skill: per-token Δ, the routing switch, and the advantage coef·Δ adds.',
  },
  {
    view: 'genac',
    title: 'Critic vs GenAC',
    text: 'Type what a generative critic wrote: the value-digit parser, every malformed form and its fallback, beside a value head’s GAE.',
  },
  { view: 'gae', title: 'GAE', text: 'Advantages from one reward and a critic, with γ and λ, over a tool-using episode.' },
];

const LABS: Card[] = [
  {
    view: 'opid-lab',
    title: 'OPID lab',
    text: 'Train hidden-opid live: the skills mined from the policy’s own rollouts, the logged Δ, and a routing switch that rescores a rollout.',
  },
  {
    view: 'genac-lab',
    title: 'GenAC lab',
    text: 'Train add-genac live: what the generative critic wrote for each rollout, its digit or fallback, the Monte-Carlo value and the return.',
  },
  {
    view: 'antihack-lab',
    title: 'Anti-hack lab',
    text: 'Train hidden-hack-ppo live per guard arm: each tool call, the rule that flagged it, the judge’s verdict, what the agent saw; hacked vs clean.',
  },
  {
    view: 'compaction-lab',
    title: 'Compaction lab',
    text: 'Train stream-ppo live: one trajectory’s segments, summaries and advantages; cut it anywhere and see which loss reducers move.',
  },
];

const TRAIN: Card[] = [
  { view: 'playground', title: 'Playground', text: 'Train a recipe live in this tab, on this page’s GPU: SFT, then RL. Pause, step, change a knob.' },
  { view: 'dashboard', title: 'Dashboard', text: 'Every headline metric of a run in small multiples, each with what a healthy value looks like.' },
  { view: 'loop', title: 'RL loop', text: 'Prompt → rollouts → reward → advantages → update, with one iteration’s numbers.' },
  { view: 'compare', title: 'Compare', text: 'PPO, GRPO and RLOO runs overlaid, with the recipe fields that differ.' },
];

function Cards({ label, cards }: { label: string; cards: Card[] }) {
  return h(
    'section',
    { class: 'home-group', 'aria-label': label },
    h('h3', null, label),
    h(
      'ul',
      { class: 'home-cards' },
      cards.map((c) =>
        h('li', { key: c.view }, h('a', { href: `#${c.view}`, class: 'home-card', 'data-view': c.view }, h('strong', null, c.title), h('span', null, c.text))),
      ),
    ),
  );
}

export function Home({ device, hasRun }: { device: DeviceStatus | null; hasRun: boolean }) {
  return h(
    'div',
    { class: 'home' },
    h('h2', null, 'Agentic RL for small language models, in TypeScript, on WebGPU'),
    h(
      'p',
      { class: 'home-lede' },
      'Horizon trains small language models to use tools — SFT, then PPO, GRPO, RLOO, KTO or distillation — with its own WGSL kernels, each checked against a float64 reference. ',
      'The same recipes and kernels run from the command line (',
      h('code', null, 'horizon train'),
      ', Node or Deno) and in this page, where a worker runs them on your GPU.',
    ),
    h(
      'p',
      { class: 'note', 'data-testid': 'home-device' },
      device === null
        ? 'Starting the GPU in the worker…'
        : device.kind === 'gpu'
          ? `This page has a WebGPU device (${device.line}): the walkthroughs run the kernels on it, and the playground can train.`
          : 'This browser gives the page no WebGPU device: the walkthroughs use the float64 references instead of the kernels, and replays still open.',
      hasRun ? ' A run is loaded for the dashboard.' : '',
    ),
    h(Cards, { label: 'Walkthroughs on the real kernels', cards: WALKTHROUGHS }),
    h(Cards, { label: 'Labs: live training of one method', cards: LABS }),
    h(Cards, { label: 'Train and watch', cards: TRAIN }),
  );
}
