/**
 * Child process for the crash tests: exports the database at argv[2] into
 * argv[3]; argv[4] `rewrite` writes every file anew, `recycle` exports
 * incrementally keeping 2 releases (so the oldest one is recycled),
 * `incremental` exports with the defaults (only what changed is rendered). When the
 * export reaches the step named argv[5] (ExportOptions.onStep), the child
 * prints "paused" and waits to be killed.
 */
import { Db } from '../../src/store/db.js';
import { exportRelease } from '../../src/export/export.js';

const [dbPath, outDir, mode, pauseAt] = process.argv.slice(2);
const db = await Db.open(dbPath!);
await exportRelease(db, {
  outDir: outDir!,
  ...(mode === 'recycle' ? { keep: 2 } : mode === 'incremental' ? {} : { incremental: false }),
  onStep: async (step) => {
    if (step !== pauseAt) return;
    process.stdout.write('paused\n');
    // A timer keeps the process alive while it waits for SIGKILL.
    await new Promise(() => setInterval(() => undefined, 1_000));
  },
});
db.close();
process.stdout.write('done\n');
