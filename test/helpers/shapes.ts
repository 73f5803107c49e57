// Checks a value against one of the public shapes of src/contract/shapes.ts, strictly: every
// object of the shape is closed (additionalProperties: false), so a field built somewhere but not
// declared fails as surely as a declared one that is missing or of the wrong type.
import { Ajv, type ValidateFunction } from 'ajv';
import type { ExecutionContext } from 'ava';
import { SHAPES } from '../../src/contract/shapes.js';

export type ShapeName = keyof typeof SHAPES;

/** The schema with every object that lists its properties closed to others. */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'enum' || k === 'const' || k === 'required' ? v : closed(v);
  if ('properties' in out && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
const validators = new Map<ShapeName, ValidateFunction>();

export function shapeValidator(name: ShapeName): ValidateFunction {
  let v = validators.get(name);
  if (!v) validators.set(name, (v = ajv.compile(closed(SHAPES[name]) as object)));
  return v;
}

/** Passes when `value` is exactly the named shape; the failure names each wrong field. */
export function assertShape(t: ExecutionContext, name: ShapeName, value: unknown, what: string = name): void {
  const validate = shapeValidator(name);
  const ok = validate(value);
  t.true(ok, `${what} is not a ${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}
