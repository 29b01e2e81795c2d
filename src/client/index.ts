/**
 * `pegscope/client`: the wallet client, kept as an export of the main package
 * for code that already imports it from there. It is the zero-dependency
 * package `@pegscope/client` (packages/client), which a wallet installs on
 * its own (docs/amounts.md).
 */
export * from '@pegscope/client';
