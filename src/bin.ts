#!/usr/bin/env node
import { main } from './cli.js';

// Long-running commands (serve, job --every) keep the event loop alive; the rest end on their own.
main(process.argv.slice(2)).then((code) => {
  if (code !== 0) process.exit(code);
}, (err: unknown) => {
  process.stderr.write(`pegscope: ${String(err)}\n`);
  process.exit(1);
});
