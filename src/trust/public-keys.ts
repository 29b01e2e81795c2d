import { existsSync, readFileSync } from 'node:fs';
import { parsePublicKey, type MinisignPublicKey } from '@pegscope/client';
import { UsageError } from '../config.js';

/**
 * The trusted keys of `--public-key`, each a minisign public key file or its
 * `RW…` line (docs/verifying.md); several during a key rotation. An error
 * names the flag and the value, never a file's content.
 */
export function publicKeys(values: readonly string[], flag: string): MinisignPublicKey[] {
  if (values.length === 0) throw new UsageError(`${flag} is required: a minisign public key file or its RW… line (repeat it to trust several keys)`);
  return values.map((value) => {
    const text = /^RW[A-Za-z0-9+/=]+$/.test(value) ? value : readKeyFile(value, flag);
    try {
      return parsePublicKey(text);
    } catch (err) {
      throw new UsageError(`${flag} ${value}: ${(err as Error).message}`);
    }
  });
}

function readKeyFile(path: string, flag: string): string {
  if (!existsSync(path)) throw new UsageError(`${flag} ${path}: no such file, and not a public key line (RW…)`);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}
