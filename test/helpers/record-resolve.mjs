/**
 * Module hooks for test/helpers/module-graph-child.ts: report every module
 * the process resolves (specifier and final URL) on the port it is given,
 * and answer "flush" once every earlier report has been sent.
 */
let port;

export function initialize(data) {
  port = data.port;
  port.on('message', (message) => {
    if (message === 'flush') port.postMessage('flushed');
  });
  port.unref();
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  port.postMessage({ specifier, url: result.url });
  return result;
}
