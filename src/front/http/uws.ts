// The only importer of uWebSockets.js. It falls back to a slow JS shim with nothing but a warning
// when its native binary fails to load, so start-up asserts the native build is in use.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const uws = require('uWebSockets.js') as typeof import('uWebSockets.js');

function assertNative(): void {
  const pkg = require.resolve('uWebSockets.js/package.json');
  const binary = new URL(`binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`, `file://${pkg}`).pathname;
  let native: unknown;
  try {
    native = require(binary);
  } catch (err) {
    throw new Error(`uWebSockets.js native build failed to load (${(err as Error).message.split('\n')[0]}); refusing to run on the JS fallback`);
  }
  if (native !== uws) throw new Error('uWebSockets.js loaded its JS fallback instead of the native build');
}

assertNative();

export const uWS = uws;
export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
