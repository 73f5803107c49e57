// A string that shares no storage with another. msgpackr decodes the strings of one message as
// slices of a single string, and V8 keeps a slice's whole parent alive: a parked long-poll that
// kept the account id of its admission reply kept every string of that reply (~170 B) with it.

/** A copy of `s` in storage of its own, for a string a long-lived record keeps. */
export function detached(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}
