/**
 * Log lines written in batches. stderr to a file or a pipe is written
 * synchronously by Node, and one write per request took a tenth of the
 * router's time; a batch is written when it would pass PIPE_BUF (4 KB) or
 * FLUSH_MS after its first line. A batch of whole lines within PIPE_BUF is
 * written in one piece, so the lines of several workers sharing one pipe
 * never interleave inside a line.
 */
const BATCH_BYTES = 4096;
const FLUSH_MS = 100;

export interface LineBatcher {
  /** Queues one line (with its newline). */
  add(line: string): void;
  /** Writes what is queued now (at exit). */
  flush(): void;
}

export function batchLines(write: (chunk: string) => void, flushMs = FLUSH_MS): LineBatcher {
  let pending = '';
  let bytes = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    bytes = 0;
    write(chunk);
  };
  return {
    add(line: string): void {
      const size = Buffer.byteLength(line);
      if (bytes + size > BATCH_BYTES) flush();
      pending += line;
      bytes += size;
      // Unreferenced: a queued line never keeps the process alive; exit flushes it.
      timer ??= setTimeout(flush, flushMs).unref();
    },
    flush,
  };
}
