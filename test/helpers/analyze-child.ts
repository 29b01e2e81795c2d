/**
 * Child process for the atomicity test: runs analyze on the database given as
 * argv[2] and, once the step named argv[3] is done (inside the transaction),
 * prints "paused" and waits to be killed.
 */
import { analyze } from '../../src/analysis/analyze.js';
import { Db } from '../../src/store/db.js';

const [path, pauseAfter] = process.argv.slice(2);
const db = await Db.open(path!);
await analyze(db, {
  onStep: async (step) => {
    if (step !== pauseAfter) return;
    process.stdout.write('paused\n');
    // A timer keeps the process alive: a bare pending promise lets Node exit (code 13) before the test kills it.
    await new Promise(() => setInterval(() => undefined, 1_000));
  },
});
