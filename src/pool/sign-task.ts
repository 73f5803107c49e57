// Pool task: signs a batch of webhook bodies (SEED.md's X-Service-Signature and the Standard
// Webhooks headers).
import { signedHeaders } from '../webhooks/payload.js';

export interface SignRequest {
  eventId: string;
  body: string;
  key: string;
  now: number;
}

export type SignedHeaders = Record<string, string>;

export default function signBatch(requests: SignRequest[]): SignedHeaders[] {
  return requests.map((r) => signedHeaders(r.eventId, r.body, r.key, r.now));
}
