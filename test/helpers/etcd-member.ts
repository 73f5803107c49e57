// A cluster member in its own process, for tests that kill it: registers `members/<id>` and stands
// for controller, prints "ready" (and "leader" once elected), then runs until killed.
// argv: endpoint prefix id ttl_s
import { Controller } from '../../src/cluster/controller.js';
import { connectEtcd } from '../../src/cluster/etcd.js';
import { MemberRegistration } from '../../src/cluster/members.js';

const [endpoint, prefix, id, ttl] = process.argv.slice(2) as [string, string, string, string];
const { ns } = connectEtcd({ endpoints: [endpoint], prefix });
await MemberRegistration.register(ns, { id, address: `127.0.0.1:0`, state: 'active' }, Number(ttl), () => {});
const log = { info(_o: object, msg: string) { if (msg === 'elected controller') console.log('leader'); }, warn() {} };
new Controller(ns, id, Number(ttl), { run: async () => undefined }, log).start();
console.log('ready');
