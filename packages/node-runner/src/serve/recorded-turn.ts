// In training mode (`horizon serve --train`, docs/serve.md "Black-box training"), what a served
// request leaves for the trainer: its session id (the client's horizon.session_id, else a fresh one),
// and, when it sampled at the recipe's rollout settings, the exact prompt ids, output ids and
// sampling log-probs under that session (core's BlackBoxTraining). The response's horizon field says
// whether the turn was recorded, by which policy version, and where in the session it went. Outside
// training mode only the session id is given, as before.

import { randomUUID } from 'node:crypto';
import { SessionError } from '@horizon/core';
import { ApiError } from './api-error.ts';
import type { ChoiceResult } from './choice.ts';
import type { RequestContext } from './handlers.ts';
import type { SamplingRequest } from './validate.ts';

export interface ServedTurn {
  sessionId: string;
  /** The turn goes into the session's trajectory (training mode, at the recipe's settings). */
  records: boolean;
  /** The policy version when sampling began. */
  versionBefore: number;
  /** Fields for the response's horizon extension, filled in once the turn is recorded. */
  recorded: Record<string, unknown>;
}

/** The request's session, checked before sampling: a rewarded session takes no more turns (400). */
export function servedTurn(req: SamplingRequest, ctx: RequestContext): ServedTurn {
  const sessionId = req.sessionId ?? randomUUID();
  const training = ctx.model.training;
  if (!training) return { sessionId, records: false, versionBefore: 0, recorded: {} };
  const records = training.records(req.temperature, req.topK);
  if (records) {
    try {
      training.checkOpen(sessionId);
    } catch (error) {
      if (error instanceof SessionError) throw new ApiError(400, error.message, 'invalid_request_error', 'horizon.session_id', 'session_closed');
      throw error;
    }
  }
  return { sessionId, records, versionBefore: training.policyVersion, recorded: { recorded: false, policy_version: training.policyVersion } };
}

/** Records the (single) choice of a training turn; an aborted one (the client went away) is not a turn. */
export function recordTurn(turn: ServedTurn, ctx: RequestContext, prompt: readonly number[], results: readonly ChoiceResult[]): void {
  const training = ctx.model.training;
  const result = results[0];
  if (!training || !turn.records || !result || result.aborted) return;
  const place = training.record(turn.sessionId, {
    promptIds: prompt,
    outputIds: result.ids,
    logprobs: result.logprobs,
    text: result.text,
    ending: result.ending,
    policyVersion: turn.versionBefore,
    spansUpdate: training.policyVersion !== turn.versionBefore,
  });
  turn.recorded = { recorded: true, policy_version: turn.versionBefore, branch: place.branch, turn: place.turn, drift: place.drift };
}
