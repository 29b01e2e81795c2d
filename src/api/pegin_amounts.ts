import { ENDPOINTS } from './params.js';
import { amountsSchema } from './top-amounts.js';

/** Most common peg-in amounts; the shape and slicing live in top-amounts.ts. */
export const spec = ENDPOINTS.pegin_amounts;
export const side = 'pegin' as const;
export const schema = amountsSchema(side);
