/**
 * Repeating a command (`job --every`, `mirror --every`): ticks run one after
 * another until SIGINT, SIGTERM or `stop`; a tick waits for the next one
 * itself, and sees the stop through its signal.
 */
export async function repeatUntilStopped(tick: (signal: AbortSignal) => Promise<void>, stop?: AbortSignal): Promise<void> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  stop?.addEventListener('abort', abort);
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  try {
    while (!controller.signal.aborted) await tick(controller.signal);
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
    stop?.removeEventListener('abort', abort);
  }
}

/** Resolves after `ms`, or at once when `stop` aborts. */
export function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, Math.max(ms, 0));
    function done(): void { clearTimeout(timer); stop.removeEventListener('abort', done); resolve(); }
    stop.addEventListener('abort', done, { once: true });
  });
}
