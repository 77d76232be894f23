// The public-API scopes of docs/decisions.md §9, and the audience they earn a token.
export const SCOPES = [
  'reports:read',
  'reports:data',
  'reports:export',
  'campaigns:read',
  'ad-accounts:read',
  'segments:read',
  'organizations:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export const AUDIENCE = 'service-api';

export const isScope = (name: string): name is Scope => (SCOPES as readonly string[]).includes(name);
