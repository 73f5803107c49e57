// Where an outcome goes. A promise's resolve and reject are one sink; the record of a parked
// request (a REST wait, a tool call, a shard's served request) is another, which answers by itself
// and so keeps no promise chain alive while it waits.
export interface Sink {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** A promise of what `start` delivers to the sink it is given. */
export function promised<T>(start: (sink: Sink) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start({ resolve: resolve as (value: unknown) => void, reject }));
}
