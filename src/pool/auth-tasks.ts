// The task the auth pool runs: sender authentication of one message (src/mail/sender-auth.ts). A
// file of its own, so parse threads never load mailauth and auth threads never load mailparser.
import { lowerThisThreadPriority } from './thread-priority.js';

lowerThisThreadPriority();

export { checkSender as senderCheck } from '../mail/sender-auth.js';
