import { ENDPOINTS } from './params.js';
import { amountsSchema } from './top-amounts.js';

/** Most common peg-out amounts; the shape and slicing live in top-amounts.ts. */
export const spec = ENDPOINTS.pegout_amounts;
export const side = 'pegout' as const;
export const schema = amountsSchema(side);
