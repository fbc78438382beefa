// The shell's own bounds. It runs in host JavaScript, where no interpreter limit applies, so every
// kind of work an agent's command line can multiply is capped here: output per command and per
// call (truncated with a marker, as verl's max_tool_response_length does), pipeline length,
// `$(...)` nesting, commands run by commands (xargs), xargs fan-out, entries find and pathname expansion visit, grep pattern length,
// and one budget of work steps per call (bytes read, matcher steps, entries visited, commands run)
// that stops a long `grep -r x /; grep -r x /; …` line however it is spelled.

import { utf8Length, utf8Prefix } from '../paths.ts';

export interface ShellLimits {
  /** Longest command line the parser accepts, in characters. */
  maxInputChars: number;
  /** Deepest nesting of `$(...)` (and backticks). */
  maxSubstitutionDepth: number;
  /** Most commands in one pipeline. */
  maxPipelineLength: number;
  /** Deepest nesting of commands run by commands (`xargs xargs xargs …`); each level is a host stack frame chain. */
  maxCommandNesting: number;
  /** Bytes one command's stdout (and, separately, stderr) keeps before truncation. */
  maxCommandOutputBytes: number;
  /** Bytes the whole call's stdout (and, separately, stderr) keeps before truncation: what the agent reads. */
  maxCallOutputBytes: number;
  /** Most command runs one xargs makes. */
  maxXargsInvocations: number;
  /** Most arguments xargs reads from its input. */
  maxXargsArgs: number;
  /** Most entries one find, or one pathname expansion, visits. */
  maxFindVisits: number;
  /** Longest grep pattern, in characters. */
  maxPatternChars: number;
  /** Work steps one call may spend (see WorkBudget). */
  maxWorkSteps: number;
}

export const DEFAULT_SHELL_LIMITS: Readonly<ShellLimits> = {
  maxInputChars: 16_384,
  maxSubstitutionDepth: 8,
  maxPipelineLength: 16,
  maxCommandNesting: 8,
  // As large as the file system's default file cap, so `cat big.txt | grep x` sees the whole file.
  maxCommandOutputBytes: 1 << 20,
  maxCallOutputBytes: 64 << 10,
  maxXargsInvocations: 256,
  maxXargsArgs: 4096,
  maxFindVisits: 10_000,
  maxPatternChars: 1000,
  maxWorkSteps: 20_000_000,
};

/** Steps charged for running one command, so a line of thousands of trivial commands is bounded too. */
export const STEPS_PER_COMMAND = 1000;

/** Thrown (and caught by the shell) when a call has spent its work budget. */
export class WorkLimitExceeded extends Error {
  constructor(readonly limit: number) {
    super(`the command line used more than its ${limit} work steps and was stopped`);
  }
}

/** The call's work budget; matchers add to `steps`, commands call `check()` at each file or line. */
export class WorkBudget {
  steps = 0;

  constructor(readonly limit: number) {}

  charge(steps: number): void {
    this.steps += steps;
    this.check();
  }

  check(): void {
    if (this.steps > this.limit) throw new WorkLimitExceeded(this.limit);
  }
}

/** A stream that keeps at most `maxBytes` and counts what it dropped. */
export class OutputSink {
  private readonly parts: string[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(readonly maxBytes: number) {}

  write(text: string): void {
    if (text === '') return;
    if (this.dropped > 0) {
      this.dropped += utf8Length(text);
      return;
    }
    const size = utf8Length(text);
    if (this.kept + size <= this.maxBytes) {
      this.parts.push(text);
      this.kept += size;
      return;
    }
    const head = utf8Prefix(text, this.maxBytes - this.kept);
    this.parts.push(head);
    this.dropped = size - utf8Length(head);
    this.kept = this.maxBytes;
  }

  /** True once something was dropped: a producer may stop early. */
  get full(): boolean {
    return this.dropped > 0;
  }

  /** What was kept, followed by a marker line when something was dropped. */
  text(): string {
    const kept = this.parts.join('');
    if (this.dropped === 0) return kept;
    return `${kept}${kept.endsWith('\n') || kept === '' ? '' : '\n'}[output truncated: ${this.dropped} more bytes past the ${this.maxBytes}-byte limit]\n`;
  }
}
