// Reading a file a person pointed us at (a recipe, a checkpoint's files) without trusting it: a
// FIFO, a device or a directory is refused before a byte is read (a FIFO used to hang forever,
// /dev/zero to grow without bound), the size is capped, and large files are read in chunks
// into one preallocated buffer (readFile stops at 2 GiB with ERR_FS_FILE_TOO_LARGE), hashed on the way.

import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** Bytes read per call; files above readFile's 2 GiB limit need several anyway. */
export const READ_CHUNK_BYTES = 64 * 1024 * 1024;

export interface CappedRead {
  bytes: Uint8Array;
  /** Hex SHA-256 of `bytes`, when asked for. */
  sha256?: string;
}

export interface CappedReadOptions {
  /** Refuse a file larger than this many bytes. */
  maxBytes: number;
  /** Hash while reading (WebCrypto cannot digest 2 GiB or more). */
  sha256?: boolean;
  /** Bytes per read call; a parameter so tests can exercise the chunked path on small files. */
  chunkBytes?: number;
}

/** Thrown by readCappedFile; callers turn it into their own one-sentence InputError. */
export class FileRefused extends Error {
  constructor(
    readonly code: 'ENOENT' | 'EISDIR' | 'NOT_REGULAR' | 'TOO_LARGE' | 'CHANGED',
    readonly size?: number,
  ) {
    super(code);
  }
}

export async function readCappedFile(path: string, options: CappedReadOptions): Promise<CappedRead> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FileRefused('ENOENT');
    if (code === 'EISDIR') throw new FileRefused('EISDIR');
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new FileRefused('EISDIR');
    if (!stat.isFile()) throw new FileRefused('NOT_REGULAR');
    if (stat.size > options.maxBytes) throw new FileRefused('TOO_LARGE', stat.size);
    const bytes = new Uint8Array(stat.size);
    const hash = options.sha256 ? createHash('sha256') : undefined;
    const chunk = options.chunkBytes ?? READ_CHUNK_BYTES;
    let at = 0;
    while (at < bytes.length) {
      const { bytesRead } = await handle.read(bytes, at, Math.min(chunk, bytes.length - at), at);
      if (bytesRead === 0) throw new FileRefused('CHANGED', at); // shrank while we read it
      hash?.update(bytes.subarray(at, at + bytesRead));
      at += bytesRead;
    }
    // One more byte would mean it grew after the stat: what we hold is not the whole file.
    const { bytesRead } = await handle.read(new Uint8Array(1), 0, 1, at);
    if (bytesRead !== 0) throw new FileRefused('CHANGED', at);
    return hash ? { bytes, sha256: hash.digest('hex') } : { bytes };
  } finally {
    await handle.close();
  }
}
