// Applies a release's file operations in order with synchronous system calls,
// one batch per message. Creating hundreds of thousands of small files through
// the promise API costs the exporter's thread more than the kernel work itself.
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

function apply(op) {
  if (op.op === 'write') writeFileSync(op.path, op.data);
  else if (op.op === 'link') linkSync(op.from, op.path);
  else if (op.op === 'mkdir') mkdirSync(op.path, { recursive: true });
  else if (op.op === 'remove') rmSync(op.path, { force: true });
  else throw new Error(`unknown file operation ${JSON.stringify(op.op)}`);
}

parentPort.on('message', (ops) => {
  try {
    for (const op of ops) apply(op);
    parentPort.postMessage(null);
  } catch (err) {
    parentPort.postMessage(err instanceof Error ? err.message : String(err));
  }
});
