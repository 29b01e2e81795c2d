/** Worker thread of the simulated chain: generates blocks ahead of the scanner and posts them in chunks. */
import { parentPort, workerData } from 'node:worker_threads';
import { SimChain, simLabels, type GeneratedBlock } from './chain.js';
import { truthMeta, type FromWorker, type GeneratorConfig, type ToWorker } from './generator.js';
import { nullTruth, truthWriter } from './truth.js';

const CHUNK_BLOCKS = 250;
const config = workerData as GeneratorConfig;
const port = parentPort!;
const truth = config.truthDir ? truthWriter(config.truthDir) : nullTruth;
const chain = new SimChain(config.rates, config.seed, truth);
let txs: { txid: string; raw: Uint8Array; until: number }[] = [];
chain.onRetain = (txid, raw, until) => txs.push({ txid, raw, until });

let target = -1;
let materializeFrom = 0;
let running = false;
const send = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
const yieldToMessages = () => new Promise<void>((resolve) => setImmediate(resolve));

async function run(): Promise<void> {
  running = true;
  try {
    while (chain.height < target) {
      const blocks: GeneratedBlock[] = [];
      const transfer: ArrayBuffer[] = [];
      const end = Math.min(target, chain.height + CHUNK_BLOCKS);
      while (chain.height < end) {
        const block = chain.next(chain.height + 1 >= materializeFrom);
        blocks.push(block);
        if (block.raw) transfer.push(block.raw.buffer as ArrayBuffer);
      }
      send({ type: 'chunk', blocks, txs, inFlight: chain.inFlight }, transfer);
      txs = [];
      await yieldToMessages();
    }
  } catch (err) {
    send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  } finally {
    running = false;
  }
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'want') {
    target = Math.max(target, m.upTo);
    materializeFrom = m.materializeFrom;
    if (!running) void run();
  } else if (m.type === 'finish') {
    target = chain.height; // stop running ahead: the truth is closed now
    try {
      truth.finish(truthMeta(config, m.upTo, m.tipHash), simLabels(config.rates, config.seed).length);
      send({ type: 'finished' });
    } catch (err) {
      send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  } else {
    target = chain.height;
    truth.abandon();
    port.close();
  }
});
