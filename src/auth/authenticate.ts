// Bearer authentication and scope checks (docs/decisions.md §8, §9): every failure looks the same from outside.
import type { Principal, TokenVerifier } from './accessTokens.ts';
import type { Context } from '../http/context.ts';
import { ApiError, invalidToken } from '../http/problem.ts';
import type { Revocations } from './revocations.ts';
import type { Scope } from './scopes.ts';
import { whenReady } from '../http/whenReady.ts';

// RFC 6750 §2.1: b64token syntax.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** Pipeline step: the caller of the request's bearer token, not revoked; from memory while the header repeats. */
export type Authenticate = (ctx: Context) => Principal | Promise<Principal>;

export function authenticate(verify: TokenVerifier, revoked: Revocations, clock: () => number): Authenticate {
  // A busy client sends the same header with every request: compared whole with the last one verified, it skips the
  // pattern and the cache's hashing of a long token.
  let last: { header: string; principal: Principal } | undefined;

  /** A store that cannot say is not taken as "revoked" here: metered paths re-check revocation when they charge. */
  const admit = (ctx: Context, principal: Principal) =>
    whenReady(revoked.isRevoked(principal.clientId), (isRevoked) => {
      if (isRevoked === true) throw invalidToken();
      ctx.log.clientId = principal.clientId;
      return principal;
    });

  return function withPrincipal(ctx) {
    const header = ctx.request.headers.get('authorization') ?? '';
    const now = clock();
    if (last?.header === header && last.principal.expiresAt > now) return admit(ctx, last.principal);
    const match = BEARER.exec(header);
    if (!match) throw invalidToken();
    return verify(match[1], now).then((principal) => {
      if (!principal) throw invalidToken();
      last = { header, principal };
      return admit(ctx, principal);
    });
  };
}

/** 403 insufficient-scope unless the caller holds scope. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new ApiError('insufficient-scope', `This endpoint needs the scope ${scope}.`, {
      headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
    });
  }
}
