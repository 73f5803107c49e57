// The TypeScript type a JSON Schema literal describes, so that a public shape is written once (as
// the schema in shapes.ts) and its type is derived from it. Covers the subset shapes.ts uses:
// type (one or a list), enum, const, anyOf, object properties/required/additionalProperties, items.

/** A JSON Schema object as a plain value (what MCP's inputSchema/outputSchema carry). */
export type JsonSchema = Record<string, unknown>;

type Flatten<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;

type ObjectOf<S> = S extends { properties: infer P }
  ? Flatten<
      { -readonly [K in keyof P & RequiredKeys<S>]: FromSchema<P[K]> } & { -readonly [K in Exclude<keyof P, RequiredKeys<S>>]?: FromSchema<P[K]> }
    >
  : S extends { additionalProperties: infer A }
    ? Record<string, FromSchema<A>>
    : Record<string, unknown>;

type OfType<T, S> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { items: infer I }
            ? FromSchema<I>[]
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S>
            : never;

/** The type of the values a JSON Schema literal (declared `as const`) accepts. */
export type FromSchema<S> = S extends { anyOf: readonly (infer A)[] }
  ? FromSchema<A>
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { const: infer C }
      ? C
      : S extends { type: infer T }
        ? OfType<T extends readonly (infer U)[] ? U : T, S>
        : unknown;

/** True when A and B are the same type (used to pin a hand-written type to its schema at compile time). */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
