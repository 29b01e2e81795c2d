/** Child process for the crash test: export a release of the database at argv[2] into argv[3], rewriting every file. */
import { Db } from '../../src/store/db.js';
import { exportRelease } from '../../src/export/export.js';

const [dbPath, outDir] = process.argv.slice(2);
const db = await Db.open(dbPath!);
await exportRelease(db, { outDir: outDir!, incremental: false });
db.close();
process.stdout.write('done\n');
