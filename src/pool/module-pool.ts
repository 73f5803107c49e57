// A piscina pool over a task module its caller names: for work whose library belongs to another
// folder (sender authentication lives in ingress/) but must stay off that folder's event loop.
import { Piscina } from 'piscina';
import { warnWorkerError } from './work-pool.js';

export class ModulePool<In, Out> {
  private readonly pool: Piscina;

  constructor(taskModule: URL, maxThreads: number, onWorkerError: (err: unknown) => void = warnWorkerError) {
    this.pool = new Piscina({ filename: taskModule.href, minThreads: 1, maxThreads, idleTimeout: 60_000 });
    this.pool.on('error', onWorkerError);
  }

  run(input: In): Promise<Out> {
    return this.pool.run(input);
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
