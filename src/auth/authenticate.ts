// Bearer authentication and scope checks (docs/decisions.md §8, §9): every failure looks the same from outside.
import type { Principal, TokenVerifier } from './accessTokens.ts';
import type { Context } from '../http/context.ts';
import { ApiError, invalidToken } from '../http/problem.ts';
import type { Revocations } from './revocations.ts';
import type { Scope } from './scopes.ts';
import { whenReady } from '../http/whenReady.ts';

// RFC 6750 §2.1: b64token syntax.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function authenticate(verify: TokenVerifier, revoked: Revocations, clock: () => number) {
  // A busy client sends the same header with every request. Compared whole with the last one verified, it skips the
  // pattern and the cache's hashing of a long token, which together were a tenth of a cheap request's pipeline.
  let last: { header: string; principal: Principal } | undefined;

  /** A store that cannot say is not taken as "revoked" here: metered paths re-check revocation when they charge. */
  const admit = (ctx: Context, principal: Principal) =>
    whenReady(revoked.isRevoked(principal.clientId), (isRevoked) => {
      if (isRevoked === true) throw invalidToken();
      ctx.principal = principal;
      ctx.log.clientId = principal.clientId;
    });

  function withPrincipal(ctx: Context): void | Promise<void> {
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
  }

  /**
   * The caller of an Authorization header verified before and still unexpired, if it is not revoked as far as this
   * process knows now; undefined whenever withPrincipal would have to verify, wait or refuse.
   */
  function known(header: string, now: number): Principal | undefined {
    if (last?.header !== header || last.principal.expiresAt <= now) return undefined;
    return revoked.isRevoked(last.principal.clientId) === false ? last.principal : undefined;
  }

  return Object.assign(withPrincipal, { known });
}

export function requireScope(scope: Scope) {
  return function withScope(ctx: Context): void {
    if (!ctx.principal!.scopes.includes(scope)) {
      throw new ApiError('insufficient-scope', `This endpoint needs the scope ${scope}.`, {
        headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
      });
    }
  };
}
