/**
 * One batch of the scan: block hashes and raw blocks fetched from the source,
 * parsed (verbosity 2 where the raw parser gives up and the source offers it),
 * and the previous outputs of its peg-in inputs resolved.
 */
import { ParseError } from '../chain/bytes.js';
import { parseBlock } from '../chain/parse.js';
import type { ChainSource, PeginInput } from '../chain/types.js';
import { blockFromVerboseJson } from '../chain/verbose.js';
import { resolveInputs, type FetchedBlock, type TxCache } from './inputs.js';

export interface Batch {
  from: number;
  to: number;
  blocks: FetchedBlock[];
  bytes: number;
  /** Previous outputs of the batch's peg-in inputs, resolved while earlier batches are stored. */
  inputs: PeginInput[];
}

/** Fetches and parses blocks `from`..`to` and resolves their peg-in inputs. */
export async function fetchBatch(source: ChainSource, from: number, to: number, cache: TxCache): Promise<Batch> {
  const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const hashes = await source.blockHashes(heights);
  const raws = await source.rawBlocks(hashes);
  const blocks: FetchedBlock[] = [];
  for (let i = 0; i < heights.length; i++) {
    const height = heights[i]!;
    const hash = hashes[i]!;
    try {
      const block = parseBlock(raws[i]!, source.network);
      if (block.hash !== hash) throw new ParseError(`block at height ${height} hashes to ${block.hash}, the node said ${hash}`);
      if (block.mweb && block.mweb.height !== height) throw new ParseError(`block ${hash} at height ${height} carries an MWEB header for height ${block.mweb.height}`);
      blocks.push({ height, block, txs: block.txs });
    } catch (err) {
      if (!(err instanceof ParseError) || !source.verboseBlocks) throw err;
      // Verbosity 2 is slow but is the node's own reading of the block.
      const [json] = await source.verboseBlocks([hash]);
      blocks.push({ height, block: blockFromVerboseJson(json!), txs: [] });
    }
  }
  const inputs = await resolveInputs(blocks, source, cache);
  return { from, to, blocks, inputs, bytes: raws.reduce((total, raw) => total + raw.length, 0) };
}
