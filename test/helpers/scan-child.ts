/**
 * Runs one scan in its own process so a test can SIGKILL it mid-way.
 * Usage: tsx test/helpers/scan-child.ts <db> <rpcUrl> <user> <password> <batchBlocks> [pauseAtTransaction]
 * Prints `progress <done>` after every stored batch and `done <toHeight>` at the end. With
 * pauseAtTransaction N, the Nth transaction does its work, then prints `paused` and blocks before
 * its COMMIT until killed: the kill lands inside a transaction however fast the scan runs.
 */
import { writeSync } from 'node:fs';
import { createRpcSource } from '../../src/chain/rpc.js';
import { NETWORKS } from '../../src/domain/network.js';
import { Db } from '../../src/store/db.js';
import { scanChain } from '../../src/store/scan.js';

const [dbPath, url, user, password, batch, pauseAt] = process.argv.slice(2);
const source = createRpcSource({ url: url!, user, password, timeoutMs: 30_000, batchSize: 50, concurrency: 2 }, NETWORKS.regtest);
const db = await Db.open(dbPath!);
if (pauseAt !== undefined) {
  const transaction = db.transaction.bind(db);
  let count = 0;
  db.transaction = <T>(work: () => Promise<T>): Promise<T> => transaction(async () => {
    const result = await work();
    if (++count === Number(pauseAt)) {
      writeSync(1, 'paused\n');
      // Blocks this thread (and so the COMMIT) for good; the test kills the process here.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    }
    return result;
  });
}
const result = await scanChain(db, source, {
  batchBlocks: Number(batch),
  progress: { start() {}, update(done) { process.stdout.write(`progress ${done}\n`); }, stop() {} },
});
db.close();
process.stdout.write(`done ${result.toHeight}\n`);
