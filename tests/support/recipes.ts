// Recipe overrides shared by tests of mechanics (files, exit codes, determinism, parity) rather than
// of learning: the tiny recipe cut to a few seconds.

export const SHORT_TINY = ['sft.steps=20', 'rl.iterations=4', 'rl.promptsPerIteration=16', 'eval.interval=2', 'eval.heldOutSize=20', 'checkpoint.interval=2'];

/** The same overrides as `--set` arguments for the CLI. */
export const SHORT_TINY_FLAGS = SHORT_TINY.flatMap((set) => ['--set', set]);
