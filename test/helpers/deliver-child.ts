/**
 * Child process for the delivery crash test: attempts every due delivery of
 * the database at argv[2] (what `pegscope watch deliver` does, loopback
 * allowed) one at a time (argv[3] attempts at once), then prints "done". The
 * test kills it while an attempt is under way.
 */
import { Db } from '../../src/store/db.js';
import { deliverDue } from '../../src/notify/deliver.js';

const db = await Db.open(process.argv[2]!);
await deliverDue(db, { allowPrivate: true, log: () => undefined, concurrency: Number(process.argv[3]) });
db.close();
process.stdout.write('done\n');
