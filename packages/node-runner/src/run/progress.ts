// The terminal progress bar for training: iterations done, ETA, and the latest reward and success.
// cli-progress (checked under Node and Deno, TTY and redirected) draws it; when the stream is not a
// terminal (CI logs, `> file`) it prints a plain line every few seconds instead of redrawing.

import cliProgress from 'cli-progress';

export interface ProgressFields {
  /** Mean rollout reward of the latest iteration. */
  reward?: number;
  /** Rollout success rate (0–1) of the latest iteration. */
  success?: number;
}

export interface ProgressOptions {
  total: number;
  /** Leading word, e.g. "sft" or "ppo". */
  label: string;
  /** Default process.stderr, so stdout stays clean for tables and results. */
  stream?: NodeJS.WritableStream;
  /** Milliseconds between plain lines when the stream is not a terminal (default 5000). */
  plainIntervalMs?: number;
}

const fmtReward = (x: number | undefined) => (x === undefined ? '–' : Number.isFinite(x) ? x.toFixed(3) : String(x));
const fmtSuccess = (x: number | undefined) => (x === undefined ? '–' : Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : String(x));

export class TrainingProgress {
  private readonly bar: cliProgress.SingleBar;
  private stopped = false;

  constructor(options: ProgressOptions) {
    if (!Number.isInteger(options.total) || options.total < 1) throw new RangeError(`progress total must be a positive integer, got ${options.total}`);
    this.bar = new cliProgress.SingleBar(
      {
        format: `${options.label} {bar} {value}/{total} | {duration_formatted} elapsed, ETA {eta_formatted} | reward {reward} | success {success}`,
        stream: options.stream ?? process.stderr,
        barsize: 24,
        hideCursor: true,
        noTTYOutput: true,
        notTTYSchedule: options.plainIntervalMs ?? 5000,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(options.total, 0, { reward: fmtReward(undefined), success: fmtSuccess(undefined) });
  }

  /** Sets the number of finished iterations and the latest live fields. */
  update(done: number, fields: ProgressFields = {}): void {
    if (this.stopped) return;
    this.bar.update(done, { reward: fmtReward(fields.reward), success: fmtSuccess(fields.success) });
  }

  /** Draws the final state and releases the terminal line. Safe to call twice. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.bar.stop();
  }
}
