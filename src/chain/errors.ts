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
    + 'try again when getblockchaininfo shows initialblockdownload false');
}

/** getblockchaininfo.chain does not match --network, or the database belongs to another network. */
export class NetworkMismatchError extends ChainSourceError {
  override name = 'NetworkMismatchError';
}

/** getrawtransaction cannot find confirmed transactions: the node runs without -txindex=1. */
export class TxIndexMissingError extends ChainSourceError {
  override name = 'TxIndexMissingError';
}

/** Any other JSON-RPC error answer. */
export class RpcCallError extends ChainSourceError {
  override name = 'RpcCallError';
  constructor(readonly method: string, readonly code: number, message: string) {
    super(`node answered ${method} with error ${code}: ${message}`);
  }
}
