/**
 * Ports for programs that must be told their port up front and cannot take
 * port 0 and report the one they bound (nginx, litecoind -rpcport). Checking
 * that a port is free and binding it later races with every other process on
 * the machine; instead the program is started on a port picked at random and,
 * when it reports the port taken, started again on another.
 */

/** Thrown by a start function when its program could not bind the port it was given. */
export class PortTakenError extends Error {
  constructor(readonly port: number, detail: string) {
    super(`port ${port} is taken: ${detail}`);
  }
}

/** Below Linux's ephemeral range (32768–60999), so outgoing connections do not hold these ports. */
const FIRST_PORT = 20_000;
const LAST_PORT = 32_767;

export const randomPort = (): number => FIRST_PORT + Math.floor(Math.random() * (LAST_PORT - FIRST_PORT + 1));

export interface RetryOptions {
  /** Tries before giving up (default 5). */
  attempts?: number;
  /** The port of each try (default randomPort). */
  choosePort?: () => number;
}

/**
 * Runs start(port) until it does not throw PortTakenError, each time on
 * another port; any other error, or the last PortTakenError, is thrown.
 */
export async function startOnSomePort<T>(start: (port: number) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 5;
  const choosePort = opts.choosePort ?? randomPort;
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(choosePort());
    } catch (err) {
      if (!(err instanceof PortTakenError) || attempt >= attempts) throw err;
    }
  }
}
