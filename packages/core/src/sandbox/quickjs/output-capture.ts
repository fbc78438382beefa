// Console output of one code run, kept up to a byte budget. The cap is applied here, on the host,
// as each line arrives, so a runaway `console.log` costs the host at most the budget (the VM side
// also cuts a line to one character past the room left before sending it, so a long line never
// crosses whole and a cut line always overflows here, which marks the output truncated).

/** UTF-8 bytes of one code point (a lone surrogate counts 3, as TextEncoder writes U+FFFD for it). */
function utf8Bytes(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

export class OutputCapture {
  readonly #limitBytes: number;
  readonly #parts: string[] = [];
  #usedBytes = 0;
  #truncated = false;

  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  /** Appends what fits of `line` (`null`: a line the VM dropped unsent) and returns the bytes still free. */
  write(line: string | null): number {
    if (line === null) {
      this.#truncated = true;
      return 0;
    }
    let end = 0;
    let bytes = this.#usedBytes;
    for (const char of line) {
      const size = utf8Bytes(char.codePointAt(0) as number);
      if (bytes + size > this.#limitBytes) {
        this.#truncated = true;
        break;
      }
      bytes += size;
      end += char.length;
    }
    this.#parts.push(end === line.length ? line : line.slice(0, end));
    this.#usedBytes = bytes;
    return this.#limitBytes - bytes;
  }

  text(): string {
    return this.#parts.join('');
  }
}
