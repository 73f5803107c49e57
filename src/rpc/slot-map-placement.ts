// A front's placement in cluster mode: the slot map in etcd, followed as it changes (DESIGN §8).
// Each front event loop follows it on its own (MAILCUE_FRONT_THREADS), as separate fronts do.
import { connectEtcd } from '../cluster/etcd.js';
import { SlotView } from '../cluster/slot-view.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../obs/logger.js';
import { SlotPlacement } from './placement.js';
import type { LatencyObserver } from './shard-client.js';
import { loadTls } from './tls.js';

/** A placement over a live SlotView; closing the placement closes the view and its etcd client. */
export async function followSlotMap(config: Config, log: Logger): Promise<(observe: LatencyObserver) => SlotPlacement> {
  const tls = loadTls(config);
  const etcd = connectEtcd({ endpoints: config.etcdEndpoints, prefix: config.etcdPrefix, tls });
  const view = await SlotView.start(etcd.ns, config.leaseTtlS);
  log.info({ members: view.members().length }, 'following the cluster slot map');
  return (observe) => {
    const placement = new SlotPlacement(view, observe, tls);
    const close = placement.close.bind(placement);
    placement.close = () => {
      close();
      void view.close().finally(() => etcd.close());
    };
    return placement;
  };
}
