// The sender-authentication task, run in a pool thread: mailauth re-reads the whole message (DKIM
// body hashes) and cost milliseconds per mail on the front's event loop, where SMTP connections live.
import { checkSender, DnsLookups, type SenderCheck } from './mail-auth.js';

let dns: DnsLookups | null = null;

export default function authenticateTask(input: SenderCheck) {
  // One resolver and answer cache per thread; the servers are the same for every task.
  dns ??= new DnsLookups(input.dnsServers);
  return checkSender(input, dns);
}
