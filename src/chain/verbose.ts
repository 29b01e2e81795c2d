/**
 * The verbosity-2 fallback: `getblock <hash> 2` answers (the node's own reading
 * of a block the raw parser rejects) turned into the same ParsedBlock.
 */
import { parseNodeValue } from '../domain/amount.js';
import { coinbaseTag, hogexFacts } from './parse.js';
import type { ParsedBlock, ParsedTx, Pegin, VerboseBlockJson, VerboseTxJson } from './types.js';

/** The same ParsedBlock built from the node's JSON instead of raw bytes; addresses are the node's own. */
export function blockFromVerboseJson(json: VerboseBlockJson): ParsedBlock {
  const txs = json.tx.map(txFromVerboseJson);
  const pegins: Pegin[] = [];
  for (const tx of txs) {
    for (const out of tx.outputs) {
      if (out.type === 'witness_mweb_pegin') {
        pegins.push({ txid: tx.txid, vout: out.n, amount: out.value, kernelId: out.scriptHex.slice(4), inputs: tx.inputs });
      }
    }
  }
  const coinbase = json.tx[0];
  const coinbaseHex = coinbase?.vin[0]?.coinbase;
  return {
    hash: json.hash,
    prevHash: json.previousblockhash ?? '0'.repeat(64),
    time: json.time,
    txCount: txs.length,
    ...hogexFacts(txs),
    pegins,
    mweb: json.mweb ? { height: json.mweb.height, numTxos: json.mweb.num_txos, numKernels: json.mweb.num_kernels } : null,
    coinbase: {
      address: txs[0]?.outputs.find((out) => out.address !== null)?.address ?? null,
      tag: coinbaseHex ? coinbaseTag(Buffer.from(coinbaseHex, 'hex')) : '',
    },
  };
}

/** One transaction of a verbose answer; `address` (new nodes) or `addresses[0]` (0.21 nodes). */
export function txFromVerboseJson(tx: VerboseTxJson): ParsedTx {
  return {
    txid: tx.txid,
    isHogEx: tx.vout[0]?.scriptPubKey.type === 'witness_mweb_hogaddr',
    inputs: tx.vin.map((vin) => (vin.coinbase !== undefined ? { prevTxid: null, prevVout: 0xffffffff } : { prevTxid: vin.txid!, prevVout: vin.vout! })),
    outputs: tx.vout.map((out) => ({
      n: out.n,
      value: parseNodeValue(out.value),
      scriptHex: out.scriptPubKey.hex,
      type: out.scriptPubKey.type,
      address: out.scriptPubKey.address ?? out.scriptPubKey.addresses?.[0] ?? null,
    })),
  };
}
