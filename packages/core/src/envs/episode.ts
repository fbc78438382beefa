// Runs episodes: environment text ↔ token ids ↔ a batched sampler, producing one Sample each. The
// sampler owns the model and the stop checks; this file owns masks, reward placement, statuses and
// context budgets.
//
// Scheduling. Up to `maxConcurrentEpisodes` episodes are open at once (reset … close). Each is either
// ready (waiting for its next action) or busy (its reset, step, verifier or close is running). One
// sampler call at a time takes every ready episode, in request order, each with its own stop
// strings; the steps it triggers run concurrently. Before a call the runner waits for busy episodes
// until all are ready or `gatherMs` has passed (default 0: one macrotask turn, so steps that compute
// without waiting on I/O — addition, the tests' tools — are always in the same call, and a batch of
// them runs exactly as a lock-step loop would). A tool still running after that joins a later call:
// one slow tool does not hold the batch. Which rows share a call then depends on timing, so every row
// is passed with its key (rollout id, segment) and the GPU sampler draws its noise by that key and
// the token's position (train/gpu-sampler.ts): a replay draws the same tokens however the calls fell.
//
// Statuses (rollout-status.ts). The environment ending an episode makes it `completed`; the runner
// cutting it at `maxTurns` actions, a full context or an observation that does not fit makes it
// `truncated`; both are scored by the environment's verifier, whose reward goes on the last action
// token. A sampler abort makes it `aborted`; an environment or verifier that throws, `failed`; the
// other episodes run on, and the trainer drops these (train/valid-rollouts.ts).
//
// Environment text is encoded with special tokens off; only its explicit `{ special }` parts become
// special ids (environment.ts), so an observation cannot forge the markup around it.
//
// Compaction (limits.compaction, compaction.ts; off when absent). Before an action, once the segment
// has taken one and the context plus `maxNewTokens` would pass the episode's threshold, the runner
// writes `<summary>` (kind `user`) and the policy's next row in the batch samples the summary (kind
// `summary`, stop string `</summary>`, budget `summaryTokens`) — or, with the deterministic
// summariser, the environment's summarize() text is taken instead and nothing is sampled. The
// segment ends there, and a new context starts as prompt + `<summary>`…`</summary>` + the last
// `keepSteps` steps, carried as kind `context`, with segmentIndex + 1 (its rows keyed by it). When
// the rollout ends, the verifier scores the whole trajectory (every segment's turns) and its reward
// goes on the last trainable token of every segment, as CompactionRL assigns the outcome to each
// segment (arXiv:2607.05378 eq. 14: local GAE per segment, then the (γλ)^tokensAfter discount);
// every segment takes the rollout's status, the non-final ones marked `compacted` (bootstrap 0),
// and `tokensAfter` counts the trainable tokens of the later segments. The rollout's samples are
// returned in segment order where its one sample would be; tool-call counts go on the last.
//
// Sub-agents (delegate.ts, branches.ts). A step may start a sub-episode through its StepContext
// (the delegate tool does): a new episode in its own context, its rows in the same sampler calls,
// its budget `subAgents`' (it never compacts, nor counts against maxConcurrentEpisodes). Its parent
// stays busy and waits; a sampler call never waits for a waiting parent (busy-episodes.ts), so the
// child's rows are not held up by the episode waiting on them. The child's answer (its last action
// when its environment ended it) resolves the delegate call; a limit, a failure or a cut-off child
// rejects it, and the tool turns that into an error observation. The child's context stays open until
// the root is scored, then takes the root's reward and status (branches.ts); the rollout's samples are
// its root's segments followed by its sub-agents' contexts in branch order.

import type { SpecialToken } from '../tokenizer/char-tokenizer.ts';
import { childBranch, type FinishedSubAgent, finishSubAgents, type ParentLink, ROOT_BRANCH, subAgentSeed } from './branches.ts';
import { BusyEpisodes } from './busy-episodes.ts';
import { type CompactionOptions, canSummarize, checkCompaction, compactionThreshold } from './compaction.ts';
import { checkSubAgentLimits, DEFAULT_SUB_AGENT_LIMITS, delegationRefusal, type SubAgentLimits } from './delegate.ts';
import { type ActionEnding, type Environment, type EnvText, type EnvTextPart, type Info, renderEnvText, type StepContext } from './environment.ts';
import { actionTokenCount, emptyToolCallCounts, failedSample, type RolloutFailure, type Sample, SampleBuilder, type ToolCallCounts } from './sample.ts';

/** What the runner needs from a tokenizer; CharTokenizer (../tokenizer/char-tokenizer.ts) is one. */
export interface TokenCodec {
  /** `{ specials: false }` encodes special-token names as their characters; the runner encodes all environment text so. */
  encode(text: string, options?: { specials?: boolean }): number[];
  decode(ids: readonly number[]): string;
  /** The id of a special token the environment writes as markup (a RangeError if the tokenizer lacks it). */
  id(special: SpecialToken): number;
  /** The end-of-sequence token id: sampling it ends the action with ending 'eos'. */
  readonly eosId: number;
}

export interface Generation {
  /** Sampled ids, including the end-of-sequence id when `ending` is 'eos'. */
  ids: number[];
  /** log π_roll of each sampled id (the distribution it was actually drawn from). */
  logprobs: number[];
  ending: ActionEnding;
  /** The sampler gave up on this row (why, in one sentence): the episode ends as an aborted rollout. */
  aborted?: string;
}

/** Which sequence a sampler row continues: its rollout, its segment (a compacted trajectory's context index) and, for a sub-agent, its branch (branches.ts). */
export interface RowKey {
  rolloutId: number;
  segment: number;
  /** Absent for the root context ('0'). */
  branch?: string;
}

export interface BatchSampler {
  /**
   * Continues every context by at most `budgets[i]` tokens, stopping row i at end-of-sequence or
   * when its decoded new text ends with one of `stopStrings[i]` (its own episode's). Returns one
   * Generation per context. `keys[i]` names row i's sequence: a sampler that keys its noise by it
   * draws the same tokens for a sequence whichever rows share the call.
   */
  generate(
    contexts: readonly (readonly number[])[],
    budgets: readonly number[],
    stopStrings: readonly (readonly string[])[],
    keys?: readonly RowKey[],
  ): Promise<Generation[]>;
}

export interface EpisodeRequest {
  env: Environment;
  seed: number;
  rolloutId: number;
  groupId: number;
}

export interface RolloutLimits {
  /** Model context length: prompt + response never exceed it. */
  contextLength: number;
  /** New tokens per action (per turn). */
  maxNewTokens: number;
  /** Actions per episode before it is cut as truncated. */
  maxTurns: number;
  /** Episodes open at once (reset … close); default all of the batch. */
  maxConcurrentEpisodes?: number;
  /** Milliseconds a sampler call waits for busy episodes once one is ready; default 0 (one macrotask turn). */
  gatherMs?: number;
  /** Compact a long trajectory into segments (compaction.ts); absent: never (the default). */
  compaction?: CompactionOptions;
  /** Bounds on sub-agents (delegate.ts); absent: DEFAULT_SUB_AGENT_LIMITS. Only environments with a delegate tool start any. */
  subAgents?: SubAgentLimits;
}

function checkLimits(limits: RolloutLimits): void {
  for (const key of ['contextLength', 'maxNewTokens', 'maxTurns'] as const) {
    const v = limits[key];
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${key} must be a positive integer, got ${v}`);
  }
  const open = limits.maxConcurrentEpisodes;
  if (open !== undefined && (!Number.isInteger(open) || open < 1)) throw new RangeError(`maxConcurrentEpisodes must be a positive integer, got ${open}`);
  const gather = limits.gatherMs;
  if (gather !== undefined && !(Number.isFinite(gather) && gather >= 0)) throw new RangeError(`gatherMs must be a non-negative number, got ${gather}`);
  if (limits.compaction) checkCompaction(limits.compaction, limits.contextLength, limits.maxNewTokens);
  if (limits.subAgents) checkSubAgentLimits(limits.subAgents, limits.contextLength);
}

function checkGeneration(g: Generation, budget: number, eosId: number, row: number): void {
  if (g.ids.length !== g.logprobs.length) throw new RangeError(`sampler row ${row}: ${g.ids.length} ids but ${g.logprobs.length} logprobs`);
  if (g.ids.length > budget) throw new RangeError(`sampler row ${row}: ${g.ids.length} tokens exceed the budget of ${budget}`);
  const eosAt = g.ids.indexOf(eosId);
  if (g.ending === 'eos' ? eosAt !== g.ids.length - 1 : eosAt !== -1)
    throw new RangeError(`sampler row ${row}: ending "${g.ending}" but end-of-sequence at index ${eosAt} of ${g.ids.length}`);
}

/** Environment text as ids: characters with specials off, `{ special }` parts as their ids. */
export function encodeEnvText(text: EnvText, codec: Pick<TokenCodec, 'encode' | 'id'>): number[] {
  const ids: number[] = [];
  for (const part of typeof text === 'string' ? [text] : text) {
    if (typeof part === 'string') for (const id of codec.encode(part, { specials: false })) ids.push(id);
    else ids.push(codec.id(part.special));
  }
  return ids;
}

interface Episode {
  index: number;
  request: EpisodeRequest;
  /** The current segment's context. */
  builder: SampleBuilder;
  /** Earlier segments of a compacted rollout, kept open until the verifier's reward is known. */
  earlier: SampleBuilder[];
  promptIds: readonly number[];
  stopStrings: readonly string[];
  /** The episode's compaction threshold (Infinity without compaction). */
  threshold: number;
  /** Actions taken in the current segment. */
  segmentActions: number;
  /** The next row samples a summary instead of an action. */
  summarizing: boolean;
  /** Ids of each step (action and its observations) so far, newest last: what a new context carries. */
  steps: number[][];
  /** Where the current step began in the builder. */
  stepStart: number;
  /** Reset's info, then each step's, later keys winning: what the verifier reads. */
  info: Info;
  actions: number;
  sampledTokens: number;
  toolCalls?: ToolCallCounts;
  /** Its budget: the rollout's limits for a root, subAgents' for a sub-agent. */
  maxTurns: number;
  contextLength: number;
  /** '0' for a root, '0.k…' for a sub-agent (branches.ts). */
  branch: string;
  /** The tree's root (itself for a root): it holds the tree's count and its finished sub-agents. */
  root: Episode;
  /** Sub-agents this context has started: the next one is numbered one more. */
  childrenStarted: number;
  /** A root's: sub-agents started in its whole tree, and those finished, kept open until its reward is known. */
  tree: { started: number; finished: FinishedSubAgent[] };
  /** A sub-agent's: where it was started, and how its answer (or why there is none) goes back to its parent. */
  child?: { link: ParentLink; parentTrainableAtStart: number; resolve(answer: string): void; reject(error: Error): void };
}

/** Runs every requested episode to its end and returns one Sample each (one per segment where compaction cut it), in request order. */
export async function collectRollouts(requests: readonly EpisodeRequest[], codec: TokenCodec, sampler: BatchSampler, limits: RolloutLimits): Promise<Sample[]> {
  checkLimits(limits);
  const { contextLength, maxNewTokens, maxTurns, compaction } = limits;
  const subAgents = { ...DEFAULT_SUB_AGENT_LIMITS, ...limits.subAgents };
  const maxOpen = limits.maxConcurrentEpisodes ?? Math.max(1, requests.length);
  const gatherMs = limits.gatherMs ?? 0;
  const samples: (Sample | Sample[] | undefined)[] = requests.map(() => undefined);
  const ready = new Map<number, Episode>();
  let open = 0;
  let next = 0;
  // Sub-agents take indices after the requests'; they do not count against maxOpen (a parent waits on them).
  let nextChild = requests.length;
  // An error that is no rollout's failure (a prompt longer than the context): it stops the batch.
  let fatal: { error: unknown } | undefined;
  const busy = new BusyEpisodes((error) => {
    fatal ??= { error };
  });
  const run = (i: number, work: () => Promise<void>) => busy.run(i, work);

  const closeEnv = async (env: Environment): Promise<RolloutFailure | undefined> => {
    try {
      await env.close();
      return undefined;
    } catch (error) {
      return { source: 'environment', message: `close failed: ${messageOf(error)}` };
    }
  };

  const finished = (i: number, sample: Sample | Sample[]) => {
    samples[i] = sample;
    open--;
  };

  /** Every segment's sample: the non-final ones compacted, each with the trainable tokens after it. */
  const finishAll = (ep: Episode, end: Omit<Parameters<SampleBuilder['finish']>[0], 'compacted' | 'tokensAfter'>): Sample[] => {
    const builders = [...ep.earlier, ep.builder];
    const out = builders.map((b, k) => {
      const last = k === builders.length - 1;
      return b.finish({ ...end, toolCalls: last ? end.toolCalls : undefined, compacted: !last });
    });
    let after = 0;
    for (let k = out.length - 1; k >= 0; k--) {
      out[k].tokensAfter = after;
      after += actionTokenCount(out[k]);
    }
    return [...out, ...finishSubAgents(ep.tree.finished, end, out)];
  };

  const fail = async (ep: Episode, failure: RolloutFailure) => {
    const closing = await closeEnv(ep.request.env);
    const message = closing ? `${failure.message}; then ${closing.message}` : failure.message;
    if (ep.child) return childEnded(ep, { ...failure, message });
    finished(ep.index, finishAll(ep, { status: 'truncated', meta: ep.info, failure: { ...failure, message }, toolCalls: ep.toolCalls }));
  };

  /** A sub-agent is over: its context waits for the root's reward, and its answer (or why there is none) goes to its parent. */
  const childEnded = (ep: Episode, failure: RolloutFailure | undefined, status?: 'completed' | 'truncated') => {
    const child = ep.child as NonNullable<Episode['child']>;
    ep.root.tree.finished.push({
      builder: ep.builder,
      branch: ep.branch,
      parentTrainableAtStart: child.parentTrainableAtStart,
      info: ep.info,
      ...(failure ? { failure } : {}),
      ...(ep.toolCalls ? { toolCalls: ep.toolCalls } : {}),
    });
    const last = ep.builder.turnsSoFar().at(-1);
    if (failure) child.reject(new Error(`sub-agent ${ep.branch} failed: ${failure.message}`));
    else if (status === 'completed' && last) child.resolve(last.action);
    else child.reject(new Error(`sub-agent ${ep.branch} was cut off at its turn or context limit before it gave a final answer`));
  };

  /** Scores a finished episode, closes it, and records its sample. */
  const end = async (ep: Episode, status: 'completed' | 'truncated') => {
    const env = ep.request.env;
    if (ep.child) return childEnded(ep, await closeEnv(env), status);
    let meta: Info = { ...ep.info };
    let failure: RolloutFailure | undefined;
    // With no action token there is nothing to score and nowhere to put a reward; it will not train.
    if (ep.sampledTokens > 0) {
      try {
        const verdict = await env.verifier.score({
          seed: ep.request.seed,
          prompt: ep.builder.promptText,
          turns: [...ep.earlier, ep.builder].flatMap((b) => b.turnsSoFar()),
          status,
          info: { ...ep.info },
        });
        // Every segment's and every sub-agent's last trainable token gets the outcome (CompactionRL,
        // branches.ts); one context: as before. A sub-agent that failed itself never trains.
        const subAgentBuilders = ep.tree.finished.filter((c) => !c.failure).map((c) => c.builder);
        for (const b of [...ep.earlier, ep.builder, ...subAgentBuilders]) if (b.hasTrainableToken) b.addReward(verdict.reward);
        meta = { ...meta, ...verdict.info };
      } catch (error) {
        failure = { source: 'verifier', message: `${env.verifier.name} verifier failed: ${messageOf(error)}` };
      }
    }
    const closing = await closeEnv(env);
    finished(ep.index, finishAll(ep, { status, meta, failure: failure ?? closing, toolCalls: ep.toolCalls }));
  };

  /** Ends the segment and opens the next: prompt + the summary ids + the last keepSteps steps. */
  const nextSegment = async (ep: Episode, summary: readonly number[]) => {
    const keep = compaction?.keepSteps ?? 0;
    const carried = [...summary, ...(keep > 0 ? ep.steps.slice(-keep) : []).flat()];
    if (ep.promptIds.length + carried.length + 1 >= contextLength) return end(ep, 'truncated');
    const { seed, rolloutId, groupId } = ep.request;
    ep.earlier.push(ep.builder);
    ep.builder = new SampleBuilder({ seed, rolloutId, groupId }, ep.builder.promptText, ep.promptIds, { carried, segmentIndex: ep.earlier.length });
    ep.segmentActions = 0;
    await another(ep);
  };

  /** Compaction's cut: the policy is asked for a summary, or the environment's summary is carried. */
  const compact = async (ep: Episode, options: CompactionOptions) => {
    if (options.summariser === 'deterministic') {
      const env = ep.request.env;
      if (!canSummarize(env)) throw new RangeError(`the deterministic summariser needs an environment with summarize(); ${env.name} has none`);
      let summary: number[];
      try {
        summary = encodeEnvText([{ special: '<summary>' }, ...envTextParts(env.summarize()), { special: '</summary>' }], codec);
      } catch (error) {
        return fail(ep, { source: 'environment', message: `summarize failed: ${messageOf(error)}` });
      }
      return nextSegment(ep, summary);
    }
    // `<summary>` and at least one summary token must fit.
    if (ep.builder.length + 2 > contextLength) return end(ep, 'truncated');
    ep.builder.addObservation([codec.id('<summary>')], '<summary>', 'user');
    ep.summarizing = true;
    ready.set(ep.index, ep);
  };

  /** The episode takes another action, unless a limit cuts it here or it compacts first. */
  const another = async (ep: Episode) => {
    if (ep.actions >= ep.maxTurns || ep.builder.length >= ep.contextLength) await end(ep, 'truncated');
    else if (compaction && !ep.child && ep.segmentActions > 0 && ep.builder.length + maxNewTokens > ep.threshold) {
      // At its last allowed segment a rollout is cut where it would compact again.
      if (compaction.maxSegments !== undefined && ep.earlier.length + 1 >= compaction.maxSegments) await end(ep, 'truncated');
      else await compact(ep, compaction);
    } else ready.set(ep.index, ep);
  };

  /** A sampled summary: recorded (trained or not, as the recipe says), then the next segment carries it. */
  const summarized = async (ep: Episode, g: Generation, options: CompactionOptions) => {
    ep.summarizing = false;
    const content = g.ending === 'eos' ? g.ids.slice(0, -1) : g.ids;
    const text = codec.decode(content);
    if (options.trainSummaries) ep.builder.addAction(g.ids, g.logprobs, text, g.ending, 'summary');
    else ep.builder.addUntrained(g.ids, text, g.ending);
    ep.sampledTokens += g.ids.length;
    const close = codec.id('</summary>');
    const summary = [codec.id('<summary>'), ...content];
    if (summary.at(-1) !== close) summary.push(close);
    await nextSegment(ep, summary);
  };

  /**
   * Resets an episode's environment and makes it ready for its first action. `child`: a sub-agent of
   * `parent`, whose failure here goes back to its parent instead of being a rollout of its own.
   */
  const begin = async (i: number, request: EpisodeRequest, sub?: { parent: Episode; branch: string; child: NonNullable<Episode['child']> }) => {
    const ids = { seed: request.seed, rolloutId: request.rolloutId, groupId: request.groupId };
    const budget = sub ? { maxTurns: subAgents.maxTurns ?? maxTurns, contextLength: subAgents.contextLength ?? contextLength } : { maxTurns, contextLength };
    let prompt: EnvText;
    let stopStrings: readonly string[];
    let info: Info;
    let promptIds: number[];
    try {
      const begun = await request.env.reset(request.seed);
      ({ prompt } = begun);
      stopStrings = begun.stopStrings ?? [];
      if (!stopStrings.every((s) => typeof s === 'string' && s.length > 0)) throw new RangeError('its stop strings must be non-empty strings');
      info = { ...begun.info };
      promptIds = encodeEnvText(prompt, codec);
      // A sub-agent's prompt holds the policy's task text: too long is the policy's doing, not a setting's.
      if (sub && promptIds.length >= budget.contextLength)
        throw new RangeError(`its prompt has ${promptIds.length} tokens, leaving no room in its context of ${budget.contextLength}`);
    } catch (error) {
      const closing = await closeEnv(request.env);
      const message = `reset(${request.seed}) failed: ${messageOf(error)}${closing ? `; then ${closing.message}` : ''}`;
      if (sub) sub.child.reject(new Error(`sub-agent ${sub.branch} could not start: ${message}`));
      else finished(i, failedSample(ids, { source: 'environment', message }));
      return;
    }
    if (promptIds.length >= contextLength)
      throw new RangeError(`the prompt of seed ${request.seed} has ${promptIds.length} tokens, leaving no room in a context of ${contextLength}`);
    const context = sub ? { branch: sub.branch, parent: sub.child.link } : {};
    const ep: Episode = {
      index: i,
      request,
      builder: new SampleBuilder(ids, renderEnvText(prompt), promptIds, context),
      earlier: [],
      promptIds,
      stopStrings,
      threshold: compaction && !sub ? compactionThreshold(request.seed, compaction) : Number.POSITIVE_INFINITY,
      segmentActions: 0,
      summarizing: false,
      steps: [],
      stepStart: 0,
      info,
      actions: 0,
      sampledTokens: 0,
      ...budget,
      branch: sub?.branch ?? ROOT_BRANCH,
      root: undefined as unknown as Episode,
      childrenStarted: 0,
      tree: { started: 0, finished: [] },
      ...(sub ? { child: sub.child } : {}),
    };
    ep.root = sub ? sub.parent.root : ep;
    ready.set(i, ep);
  };

  const start = (i: number) => {
    open++;
    run(i, () => begin(i, requests[i]));
  };

  /**
   * What `parent`'s delegate tool calls: a sub-agent in a fresh context, its seed the root's mixed
   * with its branch (a replay resets it the same way). Past a limit: a rejection, which the tool
   * turns into an error observation.
   */
  const delegate = (parent: Episode, env: Environment): Promise<string> => {
    const root = parent.root;
    const refusal = delegationRefusal(parent.branch, root.tree.started, subAgents);
    if (refusal) return Promise.reject(new Error(refusal));
    root.tree.started++;
    const branch = childBranch(parent.branch, ++parent.childrenStarted);
    const link: ParentLink = { branch: parent.branch, segmentIndex: parent.earlier.length, turn: parent.builder.turnsSoFar().length };
    const request: EpisodeRequest = { env, seed: subAgentSeed(root.request.seed, branch), rolloutId: root.request.rolloutId, groupId: root.request.groupId };
    const answer = new Promise<string>((resolve, reject) => {
      const i = nextChild++;
      const child = { link, parentTrainableAtStart: parent.builder.trainableCount, resolve, reject };
      run(i, () => begin(i, request, { parent, branch, child }));
    });
    return busy.waitingOn(parent.index, answer);
  };

  const step = async (ep: Episode, action: string, ending: ActionEnding) => {
    let outcome: Awaited<ReturnType<Environment['step']>>;
    let observation: number[] | undefined;
    // Sub-agents started in this step; the step is over only once they are (the environment may not await them).
    const children: Promise<unknown>[] = [];
    let during = true;
    const context: StepContext = {
      delegate: (env) => {
        if (!during) return Promise.reject(new Error('a sub-agent can only be started during the step that asks for it'));
        const answer = delegate(ep, env);
        children.push(answer.catch(() => undefined));
        return answer;
      },
    };
    try {
      outcome = await ep.request.env.step(action, ending, context);
      during = false;
      if (children.length > 0) await busy.waitingOn(ep.index, Promise.all(children));
      if (outcome.info) Object.assign(ep.info, outcome.info);
      if (!outcome.done) {
        if (outcome.observation === undefined) throw new RangeError('it returned neither done nor an observation');
        observation = encodeEnvText(outcome.observation, codec);
      }
    } catch (error) {
      during = false;
      if (children.length > 0) await busy.waitingOn(ep.index, Promise.all(children));
      await fail(ep, { source: 'environment', message: `step failed: ${messageOf(error)}` });
      return;
    }
    if (outcome.done) return end(ep, 'completed');
    if (outcome.toolCall) {
      const counts = ep.toolCalls ?? emptyToolCallCounts();
      ep.toolCalls = counts;
      counts[outcome.toolCall.outcome]++;
      if (outcome.toolCall.outputTruncated) counts.outputTruncated++;
    }
    // An observation that does not fit ends the episode here; its tokens would be untrainable anyway.
    if (observation === undefined || ep.builder.length + observation.length >= ep.contextLength) return end(ep, 'truncated');
    ep.builder.addObservation(observation, renderEnvText(outcome.observation), outcome.kind ?? 'observation');
    ep.steps.push(ep.builder.context().slice(ep.stepStart));
    await another(ep);
  };

  for (;;) {
    // Open episodes up to the limit, then wait for busy ones as the header says.
    for (;;) {
      while (open < maxOpen && next < requests.length) start(next++);
      if (fatal || busy.size === 0) break;
      if (ready.size === 0) await busy.any();
      // Only episodes waiting on sub-agents are busy: the call goes now (their children are in it).
      else if (!busy.anyActive || !(await settlesWithin(busy.settled(), gatherMs))) break;
    }
    if (fatal) throw fatal.error;
    if (ready.size === 0) break;
    const rows = [...ready.keys()].sort((a, b) => a - b).map((i) => ready.get(i) as Episode);
    ready.clear();
    const budgets = rows.map((ep) => Math.min(ep.summarizing ? (compaction?.summaryTokens ?? 0) : maxNewTokens, ep.contextLength - ep.builder.length));
    const generations = await sampler.generate(
      rows.map((ep) => ep.builder.context()),
      budgets,
      rows.map((ep) => (ep.summarizing ? SUMMARY_STOP : ep.stopStrings)),
      rows.map((ep) => ({ rolloutId: ep.request.rolloutId, segment: ep.earlier.length, ...(ep.child ? { branch: ep.branch } : {}) })),
    );
    if (generations.length !== rows.length) throw new RangeError(`the sampler returned ${generations.length} generations for ${rows.length} contexts`);
    for (const [k, ep] of rows.entries()) {
      const g = generations[k];
      if (g.aborted !== undefined) {
        const why = g.aborted;
        run(ep.index, () => fail(ep, { source: 'sampler', message: why }));
        continue;
      }
      checkGeneration(g, budgets[k], codec.eosId, k);
      if (ep.summarizing && compaction) {
        const options = compaction;
        run(ep.index, () => summarized(ep, g, options));
        continue;
      }
      const text = codec.decode(g.ending === 'eos' ? g.ids.slice(0, -1) : g.ids);
      ep.stepStart = ep.builder.length;
      ep.builder.addAction(g.ids, g.logprobs, text, g.ending);
      ep.actions++;
      ep.segmentActions++;
      ep.sampledTokens += g.ids.length;
      run(ep.index, () => step(ep, text, g.ending));
    }
  }
  return (samples as (Sample | Sample[])[]).flat();
}

/** What a summary's sampling stops at. */
const SUMMARY_STOP: readonly string[] = ['</summary>'];

function envTextParts(text: EnvText): readonly EnvTextPart[] {
  return typeof text === 'string' ? [text] : text;
}

/** Whether `work` settles within `ms` milliseconds (0: before the next macrotask). */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
