import { createServer } from 'node:net';
import { UsageError } from '../config.js';

/** A port another process holds: which one, and how to choose another (serve and demo alike). */
function portInUse(host: string, port: number): UsageError {
  return new UsageError(`port ${port} on ${host} is in use (EADDRINUSE): stop what listens there, or choose another port with --port N or PEGSCOPE_PORT=N`, false);
}

/** An error of listening, with a port in use told as portInUse. */
export const listenError = (err: NodeJS.ErrnoException, host: string, port: number): Error =>
  (err.code === 'EADDRINUSE' ? portInUse(host, port) : err);

/**
 * Listens on the port once and lets it go: the primary of several workers
 * checks it before forking them, so a port in use is one message, not one per
 * worker. Port 0 is always free.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, host, port)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
