// Preloaded (`node --import`) by `npm run lint` only. typescript-eslint and dependency-cruiser parse
// through TypeScript's JavaScript API, which TypeScript 7 (the compiler this project builds with)
// no longer ships; both support TypeScript up to 6.0. So inside the lint processes, and nowhere
// else, `typescript` resolves to the devDependency `typescript-6` (npm:typescript@~6.0.3). The
// package.json override only tells npm that typescript-eslint's peer is satisfied by this redirect.
import Module, { register } from 'node:module';

const redirect = (specifier) =>
  specifier === 'typescript' || specifier.startsWith('typescript/') ? `typescript-6${specifier.slice('typescript'.length)}` : specifier;

// CommonJS require() (typescript-eslint, dependency-cruiser's version check): Node 20 has no public sync hook.
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, redirect(request), ...rest);
};

// ES module import() (dependency-cruiser's parser).
const hook = `export async function resolve(specifier, context, next) {
  const s = specifier === 'typescript' || specifier.startsWith('typescript/') ? 'typescript-6' + specifier.slice(10) : specifier;
  return next(s, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
