/**
 * Child process for test/layers.test.ts: imports the module at argv[2] and
 * prints, as one JSON line, every module its import graph resolved and the
 * shared libraries mapped into this process whose path names DuckDB.
 */
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

export interface ModuleGraph {
  modules: { specifier: string; url: string }[];
  duckdbLibraries: string[];
}

const { port1, port2 } = new MessageChannel();
const modules: ModuleGraph['modules'] = [];
const flushed = new Promise<void>((done) => {
  port1.on('message', (message: ModuleGraph['modules'][number] | 'flushed') => {
    if (message === 'flushed') done();
    else modules.push(message);
  });
});
register('./record-resolve.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });

await import(pathToFileURL(resolve(process.argv[2]!)).href);
// Reports arrive in order on one port: once "flushed" is back, every resolution is in.
port1.postMessage('flush');
await flushed;
port1.close();

const duckdbLibraries = [...new Set(readFileSync('/proc/self/maps', 'utf8').split('\n')
  .map((line) => line.split(/\s+/).slice(5).join(' '))
  .filter((path) => /duckdb/i.test(path)))];
const graph: ModuleGraph = { modules, duckdbLibraries };
process.stdout.write(`${JSON.stringify(graph)}\n`);
