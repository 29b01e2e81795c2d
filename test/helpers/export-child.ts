/**
 * Child process for the crash tests: export a release of the database at
 * argv[2] into argv[3]; argv[4] `rewrite` writes every file anew, `recycle`
 * exports incrementally keeping 2 releases (so the older one is recycled).
 */
import { Db } from '../../src/store/db.js';
import { exportRelease } from '../../src/export/export.js';

const [dbPath, outDir, mode] = process.argv.slice(2);
const db = await Db.open(dbPath!);
await exportRelease(db, mode === 'recycle' ? { outDir: outDir!, keep: 2 } : { outDir: outDir!, incremental: false });
db.close();
process.stdout.write('done\n');
