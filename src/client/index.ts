/**
 * `pegscope/client`: deprecated; import `@pegscope/client` (packages/client,
 * docs/amounts.md), the zero-dependency package this re-exports. Kept so that
 * code importing the old subpath of the main package still works.
 */
export * from '@pegscope/client';
