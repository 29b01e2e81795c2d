/** Set by the build (scripts/build-web.ts): the rendered docs pages, as paths relative to index.html. */
declare const __EXPLORER_DOCS__: { methodology: string; api: string };
