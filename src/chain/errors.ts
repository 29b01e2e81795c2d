/**
 * Text from a node or a server in front of it, made safe for one terminal
 * line: whitespace runs become one space, control and invisible formatting
 * characters (ESC, NUL, U+202E, …) are escaped, and it is cut to `max` characters.
 */
export function remoteText(text: unknown, max = 200): string {
  const whole = String(text);
  // Whitespace runs shrink, so a head of 8 × max is plenty and a huge body is never split into characters.
  const head = whole.slice(0, 8 * max);
  const chars = [...head.replace(/\s+/g, ' ').trim()];
  const cut = chars.length > max || head.length < whole.length ? [...chars.slice(0, max - 1), '…'] : chars;
  return cut.join('').replace(/[\p{Cc}\p{Cf}]/gu, (ch) => {
    const code = ch.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** Failures of a chain source, each saying what was wrong and what to do next (the CLI exits 1 on all of them). */
export class ChainSourceError extends Error {
  override name = 'ChainSourceError';
}

/** HTTP 401: wrong user/password, or a stale cookie. */
export class NodeAuthError extends ChainSourceError {
  override name = 'NodeAuthError';
}

/** Connection refused, DNS failure, or timeouts after the retries. */
export class NodeUnreachableError extends ChainSourceError {
  override name = 'NodeUnreachableError';
}

/** The node is still in initial block download (or its index is still building). */
export class NodeSyncingError extends ChainSourceError {
  override name = 'NodeSyncingError';
}

export function initialDownloadError(blocks: number, headers: number): NodeSyncingError {
  return new NodeSyncingError(`the node is still in initial block download (blocks ${blocks}/${headers}); `
    + 'try again when it has synced (blocks equal headers), or pass --allow-syncing to scan the blocks it has now');
}

/** getblockchaininfo.chain does not match --network, or the database belongs to another network. */
export class NetworkMismatchError extends ChainSourceError {
  override name = 'NetworkMismatchError';
}

/** getrawtransaction cannot find confirmed transactions: the node runs without -txindex=1. */
export class TxIndexMissingError extends ChainSourceError {
  override name = 'TxIndexMissingError';
}

/** An answer that is not Litecoin Core's JSON-RPC: an HTML error page from a proxy, another service, a broken batch. */
export class NotJsonRpcError extends ChainSourceError {
  override name = 'NotJsonRpcError';
}

/** An answer larger than the client reads (PEGSCOPE_RPC_MAX_ANSWER_MB); `bytesRead` is what was read before stopping. */
export class AnswerTooLargeError extends ChainSourceError {
  override name = 'AnswerTooLargeError';
  constructor(message: string, readonly bytesRead: number) {
    super(message);
  }
}

/** Any other JSON-RPC error answer. */
export class RpcCallError extends ChainSourceError {
  override name = 'RpcCallError';
  constructor(readonly method: string, readonly code: number, message: string) {
    super(`node answered ${method} with error ${code}: ${message}`);
  }
}
