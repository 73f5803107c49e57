// Entry of a load-generator child process: the parent calls methods over the IPC channel
// ({id, method, params} → {id, result | error, cpu_s}). Generators run in their own process so that
// their CPU time (process.cpuUsage) is measured apart from the server's and the runner's.
import { runSmtpLoad } from './smtp-client.js';

type Method = (params: any) => Promise<unknown> | unknown;

const methods: Record<string, Method> = {
  smtpLoad: (p) => runSmtpLoad(p),
  cpu: () => null,
  async httpLoad(p) {
    const { runHttpLoad } = await import('./http-load-node.js');
    return runHttpLoad(p);
  },
  async grpcClient(p) {
    const { runGrpcClient } = await import('./grpc-echo.js');
    return runGrpcClient(p);
  },
  async waitersPark(p) {
    const { waiters } = await import('./waiters.js');
    return waiters.park(p);
  },
  async waitersWake(p) {
    const { waiters } = await import('./waiters.js');
    return waiters.sendAndMeasure(p);
  },
  async waitersClose() {
    const { waiters } = await import('./waiters.js');
    return waiters.close();
  },
  async webhookListen(p) {
    const { receiver } = await import('./webhook-receiver.js');
    return receiver.listen(p);
  },
  async webhookRun(p) {
    const { receiver } = await import('./webhook-receiver.js');
    return receiver.run(p);
  },
};

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

process.on('message', (msg: { id: number; method: string; params: unknown }) => {
  const method = methods[msg.method];
  void (async () => {
    try {
      if (!method) throw new Error(`unknown method ${msg.method}`);
      const result = await method(msg.params);
      process.send!({ id: msg.id, result, cpu_s: cpuSeconds() });
    } catch (err) {
      process.send!({ id: msg.id, error: (err as Error).stack ?? String(err), cpu_s: cpuSeconds() });
    }
  })();
});
process.on('disconnect', () => process.exit(0));
process.send!({ id: 0, result: 'ready', cpu_s: cpuSeconds() });
