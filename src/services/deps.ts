// What a service function needs from the process it runs in. REST handlers and MCP tools both
// build one of these and call the same service functions.
import type { Config } from '../config/config.js';
import type { KeyScope } from '../contract/keys.js';
import type { Logger } from '../obs/logger.js';
import type { WorkPool } from '../pool/work-pool.js';
import type { Cluster } from '../rpc/cluster.js';
import type { AdmittedCredentials } from '../security/admitted-credentials.js';
import type { AdmissionLeases } from '../security/admission-leases.js';

export interface Deps {
  readonly config: Config;
  readonly cluster: Cluster;
  readonly pool: WorkPool;
  readonly log: Logger;
  /** Credentials this front saw admitted recently (DESIGN §7). */
  readonly admitted: AdmittedCredentials;
  /** Blocks of admissions this front spends for busy credentials (DESIGN §7, issue 18). */
  readonly leases: AdmissionLeases;
}

/** The authenticated caller of a service function. */
export interface Caller {
  readonly accountId: string;
  /** A scoped key's limits (src/services/scope.ts); absent for the account's own key. */
  readonly scope?: KeyScope;
}
