// Latency samples and percentiles (nearest rank on the sorted samples; never averages).

export interface Percentiles {
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

export const NO_PERCENTILES: Percentiles = { p50_ms: null, p90_ms: null, p99_ms: null, max_ms: null };

/** A growable buffer of millisecond samples. */
export class Samples {
  private buf = new Float64Array(1024);
  private n = 0;

  add(ms: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = ms;
  }

  get count(): number {
    return this.n;
  }

  values(): Float64Array {
    return this.buf.subarray(0, this.n);
  }

  percentiles(): Percentiles {
    return percentiles(this.values());
  }
}

export const round = (v: number, digits = 3): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export function percentiles(values: ArrayLike<number>): Percentiles {
  if (values.length === 0) return NO_PERCENTILES;
  const sorted = Float64Array.from(values).sort();
  return {
    p50_ms: round(percentile(sorted, 0.5)),
    p90_ms: round(percentile(sorted, 0.9)),
    p99_ms: round(percentile(sorted, 0.99)),
    max_ms: round(sorted[sorted.length - 1]!),
  };
}
