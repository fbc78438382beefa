// What black-box training (`horizon serve --train`, docs/serve.md "Black-box training") keeps of an
// outside agent's requests: per session id, the exact prompt ids, output ids and sampling log-probs
// of every turn, never re-tokenized — slime's black-box rollout mode (THUDM/slime, the agent talks
// to an OpenAI endpoint and the trainer keeps the token records), in miniature.
//
// A session's trajectory grows turn by turn: a new prompt that starts with the last turn's prompt
// plus its output continues it (what lies between is the agent's own text: an observation). A prompt
// that does not — drift: the agent edited its history, re-rendered it, or asked something unrelated —
// starts a new branch of the session, and the old branch stays as it was: nothing is re-tokenized
// or guessed, and every branch trains as its own sample with the session's reward (an edited prefix
// cannot be trusted to be what the policy saw, so it is never merged into the old tokens).
// The client then posts the session's reward once, with an optional group name (GRPO/RLOO's prompt
// group; by default the session's first prompt, so sessions on the same prompt form a group).
// Left out: per-turn rewards, and sessions that expire without a reward (they are kept until the
// server stops).

import type { ActionEnding } from '../envs/environment.ts';

/** One served completion of a session, as the policy sampled it. */
export interface RecordedTurn {
  promptIds: readonly number[];
  outputIds: readonly number[];
  /** log π_roll of each output token under the distribution it was drawn from. */
  logprobs: readonly number[];
  /** The completion's text as the client saw it (stop string and <eos> left out). */
  text: string;
  ending: ActionEnding;
  /** The policy version (updates done) when its first token was sampled. */
  policyVersion: number;
  /** An update ran while this turn was sampling: its later tokens came from the newer policy. */
  spansUpdate: boolean;
}

/** A session with its reward: one or more branches, each a list of turns that extend each other. */
export interface RewardedSession {
  id: string;
  branches: readonly (readonly RecordedTurn[])[];
  reward: number;
  group: string;
}

/** Where a recorded turn went. */
export interface TurnPlace {
  /** Branch index in the session (0 first; a drift adds one). */
  branch: number;
  /** Turn index within the branch. */
  turn: number;
  /** The prompt did not extend the session's last prompt + output, so a new branch started. */
  drift: boolean;
}

interface Session {
  branches: RecordedTurn[][];
  reward?: number;
  group?: string;
}

/** A mistake of the client's (an unknown or already rewarded session): the server answers it as a 400 or 404. */
export class SessionError extends Error {
  constructor(
    message: string,
    readonly kind: 'unknown' | 'closed',
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

export class SessionRecorder {
  private readonly sessions = new Map<string, Session>();
  /** Rewarded sessions not yet trained on, in the order their rewards came. */
  private rewarded: string[] = [];

  /** Sessions with at least one turn, rewarded or not, not yet trained on. */
  get size(): number {
    return this.sessions.size;
  }

  /** Rewarded sessions waiting for a batch. */
  get waiting(): number {
    return this.rewarded.length;
  }

  /** Refuses, before sampling, a turn for a session already rewarded (its trajectory is over). */
  checkOpen(sessionId: string): void {
    if (this.sessions.get(sessionId)?.reward !== undefined)
      throw new SessionError(`session ${sessionId} already has its reward; start a new session for a new trajectory.`, 'closed');
  }

  /** Records a turn under `sessionId`; refuses a session already rewarded (its trajectory is over). */
  record(sessionId: string, turn: RecordedTurn): TurnPlace {
    if (turn.outputIds.length !== turn.logprobs.length)
      throw new RangeError(`a turn needs one log-prob per output token, got ${turn.logprobs.length} for ${turn.outputIds.length}`);
    let session = this.sessions.get(sessionId);
    if (!session) {
      session = { branches: [] };
      this.sessions.set(sessionId, session);
    }
    this.checkOpen(sessionId);
    const branch = session.branches.at(-1);
    const last = branch?.at(-1);
    if (branch && last && extendsTurn(turn.promptIds, last)) {
      branch.push(turn);
      return { branch: session.branches.length - 1, turn: branch.length - 1, drift: false };
    }
    session.branches.push([turn]);
    return { branch: session.branches.length - 1, turn: 0, drift: branch !== undefined };
  }

  /** The reward of a whole session; `group` names its prompt group (default: its first prompt's ids). */
  reward(sessionId: string, reward: number, group?: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) throw new SessionError(`there is no session ${sessionId}: request a completion with it first.`, 'unknown');
    if (session.reward !== undefined) throw new SessionError(`session ${sessionId} already has its reward.`, 'closed');
    if (!Number.isFinite(reward)) throw new RangeError(`a reward must be a finite number, got ${reward}`);
    session.reward = reward;
    session.group = group ?? `prompt:${session.branches[0][0].promptIds.join(',')}`;
    this.rewarded.push(sessionId);
  }

  /**
   * The next batch when it is complete: the first `groups` groups (in the order of their first
   * reward) that have `groupSize` rewarded sessions each, the first `groupSize` of each. Taken
   * sessions are forgotten; the rest wait for a later batch. Undefined until enough are rewarded.
   */
  takeBatch(groups: number, groupSize: number): RewardedSession[][] | undefined {
    const byGroup = new Map<string, string[]>();
    for (const id of this.rewarded) {
      const group = this.sessions.get(id)?.group ?? '';
      const members = byGroup.get(group) ?? [];
      if (members.length < groupSize) members.push(id);
      byGroup.set(group, members);
    }
    const full = [...byGroup.values()].filter((members) => members.length === groupSize).slice(0, groups);
    if (full.length < groups) return undefined;
    const taken = new Set(full.flat());
    this.rewarded = this.rewarded.filter((id) => !taken.has(id));
    return full.map((members) =>
      members.map((id) => {
        const session = this.sessions.get(id) as Required<Session>;
        this.sessions.delete(id);
        return { id, branches: session.branches, reward: session.reward, group: session.group };
      }),
    );
  }
}

/** Whether `prompt` starts with the turn's prompt followed by its output. */
function extendsTurn(prompt: readonly number[], turn: RecordedTurn): boolean {
  const before = turn.promptIds.length + turn.outputIds.length;
  if (prompt.length < before) return false;
  for (let i = 0; i < turn.promptIds.length; i++) if (prompt[i] !== turn.promptIds[i]) return false;
  for (let i = 0; i < turn.outputIds.length; i++) if (prompt[turn.promptIds.length + i] !== turn.outputIds[i]) return false;
  return true;
}
