// The durable-write primitives every run file uses: a unique temp name, write-and-fsync, and
// fsync of a directory so a rename inside it survives power loss (write-file-atomic and llm.c do
// the same; docs/reliability.md §2).

import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';

export function tempName(name: string): string {
  return `.${name}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** fsync a directory; platforms that cannot open one (Windows) skip it, as write-file-atomic does. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw error;
  } finally {
    await handle?.close();
  }
}
