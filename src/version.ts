import { readFileSync } from 'node:fs';

/** The version in package.json, one level up from src/ (tsx) and dist/ alike, read when asked. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
