// The public-API scopes of docs/decisions.md §9 (listed with the data model's enumerations), and the audience they
// earn a token.
import { SCOPES, type Scope } from '../dataModel.ts';
export { SCOPES, type Scope };

export const AUDIENCE = 'service-api';

export const isScope = (name: string): name is Scope => (SCOPES as readonly string[]).includes(name);
