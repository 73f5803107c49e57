// Compile-time checks that the types kept by hand beside shapes.ts (the stored authentication
// record, the plan names, planLimits()) are exactly what the public schemas say: a field added to
// one and not the other fails the build. Kept apart from shapes.ts, which imports nothing.
import type { PlanName, planLimits } from '../config/plans.js';
import type { Authentication } from './authentication.js';
import type { FromSchema, Same } from './json-schema.js';
import type { Account, authenticationSchema, PlanLimits } from './shapes.js';

type Assert<T extends true> = T;

export type ShapeChecks = [
  Assert<Same<FromSchema<typeof authenticationSchema>, Authentication>>,
  Assert<Same<Account['plan'], PlanName>>,
  Assert<Same<PlanLimits, ReturnType<typeof planLimits>>>,
];
