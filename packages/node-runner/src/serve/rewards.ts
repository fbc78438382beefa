// The training-mode extension endpoints of `horizon serve --train` (docs/serve.md "Black-box
// training"): POST /v1/horizon/rewards takes a session's reward, and answers once any RL update it
// completed has run (so the client's next request samples the new policy); GET /v1/horizon/status
// says how far training is. OpenAI's API has no such endpoints, so their shapes are Horizon's own;
// errors are OpenAI's bodies like every other endpoint's.

import { type BlackBoxTraining, SessionError } from '@horizon/core';
import { ApiError, invalid } from './api-error.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** { session_id, reward, group? } → what the reward led to. */
export async function postReward(training: BlackBoxTraining, body: unknown): Promise<unknown> {
  if (!isObject(body)) throw invalid('body', 'The body must be a JSON object {"session_id": "…", "reward": number, "group": "…" (optional)}.');
  for (const key of Object.keys(body))
    if (!['session_id', 'reward', 'group'].includes(key))
      throw invalid(key, `Unrecognized field ${JSON.stringify(key)}: a reward takes session_id, reward and group.`);
  const { session_id: sessionId, reward, group } = body;
  if (typeof sessionId !== 'string' || sessionId === '') throw invalid('session_id', 'session_id must be the non-empty session id of a served completion.');
  if (typeof reward !== 'number' || !Number.isFinite(reward)) throw invalid('reward', 'reward must be a finite number.');
  if (group !== undefined && (typeof group !== 'string' || group.length > 200)) throw invalid('group', 'group must be a string of at most 200 characters.');
  try {
    const update = await training.reward(sessionId, reward, group);
    return {
      session_id: sessionId,
      waiting: training.recorder.waiting,
      update: update ? { iteration: update.iteration, policy_version: update.policyVersion, samples: update.samples, metrics: update.metrics } : null,
    };
  } catch (error) {
    if (error instanceof SessionError)
      throw error.kind === 'unknown'
        ? new ApiError(404, error.message, 'not_found_error', 'session_id', 'session_not_found')
        : new ApiError(400, error.message, 'invalid_request_error', 'session_id', 'session_closed');
    throw error;
  }
}

export function trainingStatus(training: BlackBoxTraining): unknown {
  return {
    policy_version: training.policyVersion,
    iteration: training.iteration,
    sessions_open: training.recorder.size - training.recorder.waiting,
    sessions_waiting: training.recorder.waiting,
  };
}
