/**
 * Runs one scan in its own process so a test can SIGKILL it mid-way.
 * Usage: tsx test/helpers/scan-child.ts <db> <rpcUrl> <user> <password> <batchBlocks>
 * Prints `progress <done>` after every stored batch and `done <toHeight>` at the end.
 */
import { createRpcSource } from '../../src/chain/rpc.js';
import { NETWORKS } from '../../src/domain/network.js';
import { Db } from '../../src/store/db.js';
import { scanChain } from '../../src/store/scan.js';

const [dbPath, url, user, password, batch] = process.argv.slice(2);
const source = createRpcSource({ url: url!, user, password, timeoutMs: 30_000, batchSize: 50, concurrency: 2 }, NETWORKS.regtest);
const db = await Db.open(dbPath!);
const result = await scanChain(db, source, {
  batchBlocks: Number(batch),
  progress: { start() {}, update(done) { process.stdout.write(`progress ${done}\n`); }, stop() {} },
});
db.close();
process.stdout.write(`done ${result.toHeight}\n`);
