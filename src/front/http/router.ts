// Routes on uWebSockets.js' own router. Each handler gets an Exchange; a thrown or rejected error
// goes to the router's one error mapper, and every answered request is observed for metrics.
// A handler may also return before it answers (a parked long-poll) and answer through the
// Exchange later: the answer, not the handler's return, is what gets observed.
import { MailcueError } from '../../errors/registry.js';
import { DEFAULT_BODY_MAX_BYTES, Exchange, type ExchangeHooks } from './exchange.js';
import type { TemplatedApp } from './uws.js';

export type Handler = (ex: Exchange) => unknown;
export type Method = 'get' | 'post' | 'del' | 'patch' | 'put' | 'options' | 'any';
export type RouterHooks = ExchangeHooks;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

async function run(handler: Handler, ex: Exchange): Promise<void> {
  try {
    await handler(ex);
  } catch (err) {
    ex.fail(err);
  }
}

export class Router {
  constructor(private readonly app: TemplatedApp, private readonly hooks: RouterHooks) {}

  /** `bodyMaxBytes`: the largest body the route reads (REST's default unless it says otherwise). */
  add(method: Method, pattern: string, handler: Handler, bodyMaxBytes = DEFAULT_BODY_MAX_BYTES): this {
    const paramCount = (pattern.match(/\/:/g) ?? []).length;
    const hooks = this.hooks;
    this.app[method](pattern, (res, req) => {
      let ex: Exchange;
      try {
        ex = new Exchange(res, req, paramCount, hooks, bodyMaxBytes);
      } catch {
        // An exception thrown into uWS's native callback would end the process: answer instead.
        res.cork(() => res.writeStatus('400 Bad Request').end());
        return;
      }
      ex.route = pattern;
      // uWS delivers a body only to an onData registered before the handler returns; it is read
      // here, up to the route's own limit, and the handler's body() shares the same read.
      if (BODY_METHODS.has(ex.method)) ex.body().catch(() => undefined);
      void run(handler, ex);
    });
    return this;
  }

  /** The last route: anything no route above matched is `route_not_found`. */
  notFound(): this {
    return this.add('any', '/*', (ex) => {
      throw new MailcueError('route_not_found', `No route for ${ex.method} ${ex.path}`);
    });
  }
}
