// The HiddenTestFS episodes every runtime runs for the parity test: the `hidden-ppo` preset (hack
// closed) with a 40-step SFT warm start of 4 examples a step at a raised learning rate, then 8
// episodes sampled at τ = 0.5. Measured on Node (Dawn, SwiftShader), seed 1: the freshly
// initialised policy writes no `sh` call in 4 episodes, nor after the preset's own SFT settings cut
// to 30 steps (93 s); 40 steps at lr 0.01 make it list and cat, but at τ = 1 no call that writes
// f.js exits 0; at τ = 0.5, 5 of the 8 episodes write f.js with `echo … >f.js` and 2 pass grading,
// so the shell, the virtual file system and QuickJS (in grading; no episode reaches run_tests) all
// run. About 30 s there.

import type { HiddenTestFsEpisodesRequest } from '@horizon/core';

export const PARITY_REQUEST: HiddenTestFsEpisodesRequest = {
  seed: 1,
  episodes: 8,
  hackOpen: false,
  sets: ['sft.steps=40', 'sft.batchSize=4', 'sft.lr=0.01', 'rl.temperature=0.5'],
};
