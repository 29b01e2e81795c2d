/**
 * vitest global setup: builds the explorer page (src/web/ → dist/explorer/)
 * once per run, so every release a test exports carries the page of the
 * current sources, as `npm run build` gives a user.
 */
import { buildExplorer } from '../../scripts/build-web.js';

export default async function setup(): Promise<void> {
  await buildExplorer();
}
