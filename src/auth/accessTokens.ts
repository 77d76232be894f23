// Access tokens (docs/decisions.md §9): JWTs signed HS256, verified with the algorithm, issuer, audience and expiry
// pinned.
import { SignJWT, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import * as v from 'valibot';
import { AUDIENCE, isScope, type Scope } from './scopes.ts';
import type { SigningKeys } from './signingKeys.ts';
import type { AllowList, Principal } from '../http/caller.ts';
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';

export type { AllowList, Principal };

const uuid = v.pipe(v.string(), v.uuid());
// The claims a client token must carry; a person's app token, or anything else, lacks them.
const ClaimsSchema = v.object({
  sub: v.pipe(v.string(), v.startsWith('rdc_')),
  client_id: v.pipe(v.string(), v.startsWith('rdc_')),
  organization_id: uuid,
  scope: v.string(),
  report_ids: v.array(uuid),
  ad_account_ids: v.array(uuid),
  reports_all: v.boolean(),
  ad_accounts_all: v.boolean(),
  exp: v.number(),
});

export type TokenGrant = {
  clientId: string;
  organizationId: string;
  scopes: Scope[];
  reportIds: string[];
  reportsAll: boolean;
  adAccountIds: string[];
  adAccountsAll: boolean;
};

export async function issueAccessToken(
  keys: SigningKeys,
  grant: TokenGrant,
  options: { issuer: string; now: number; ttlSeconds: number },
): Promise<string> {
  const key = await keys.current();
  const iat = Math.floor(options.now / 1000);
  const jwt = new SignJWT({
    scope: grant.scopes.join(' '),
    client_id: grant.clientId,
    organization_id: grant.organizationId,
    report_ids: grant.reportIds,
    ad_account_ids: grant.adAccountIds,
    reports_all: grant.reportsAll,
    ad_accounts_all: grant.adAccountsAll,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
    .setIssuer(options.issuer)
    .setSubject(grant.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + options.ttlSeconds)
    .setJti(crypto.randomUUID());
  // docs/decisions.md §9: the audience comes with any public-API scope, and only then.
  if (grant.scopes.length > 0) jwt.setAudience(AUDIENCE);
  return jwt.sign(key.secret);
}

const CACHE_LIMIT = 10_000;

/**
 * The issuers this process accepts: its own BASE_URL, and every one another process over the same database signs
 * as (migration 014). Without it, two processes left on their default BASE_URL (http://HOST:PORT) would refuse
 * each other's tokens.
 */
export type TokenIssuers = {
  own: string;
  /** Records the own issuer in the store, once per process, before its first token is signed. */
  register(): Promise<void>;
  /** Reads the issuers the store knows; at start, before the process answers. */
  load(): Promise<void>;
  accepts(issuer: string): Promise<boolean>;
};

export function tokenIssuers(sql: Sql, own: string): TokenIssuers {
  let registered: Promise<void> | undefined;
  let known = new Set<string>();
  let loading: Promise<void> | undefined;
  // One read at a time, shared by every request waiting on it.
  const load = () =>
    (loading ??= query(sql, 'list-token-issuers')
      .then((rows) => {
        known = new Set(rows.map((row) => row.issuer));
      })
      .finally(() => {
        loading = undefined;
      }));
  return {
    own,
    register() {
      registered ??= query(sql, 'register-token-issuer', { issuer: own }).then(
        () => {},
        (error) => {
          registered = undefined;
          throw error;
        },
      );
      return registered;
    },
    load,
    /**
     * An issuer not known yet is looked up before the token is refused (docs/decisions.md §9: a process started a
     * moment ago signs as one): a read already under way is waited for, then one more read is made. Only a token whose
     * signature held gets here, so nobody without a signing key can make this process read.
     */
    async accepts(issuer) {
      if (issuer === own || known.has(issuer)) return true;
      if (loading) await loading.catch(() => {});
      if (known.has(issuer)) return true;
      await load();
      return known.has(issuer);
    },
  };
}

export type TokenVerifier = (token: string, now: number) => Promise<Principal | undefined>;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * RFC 7515 §2 and §7.1: a compact JWS is three base64url segments without padding. Canonical only
 * (docs/decisions.md §9): no padding, nothing outside the alphabet, and no bits set past the last whole byte, so one
 * token has one spelling. Decoders forgive all three, and a token with `=` appended to its signature was accepted.
 */
export function isCanonicalCompact(token: string): boolean {
  const segments = token.split('.');
  if (segments.length !== 3) return false;
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) return false;
    const rest = segment.length % 4;
    if (rest === 1) return false;
    // The last character of 2 (or 3) characters carries 4 (or 2) bits that belong to no byte: they must be 0.
    if (rest > 0 && (BASE64URL.indexOf(segment[segment.length - 1]) & (rest === 2 ? 0x0f : 0x03)) !== 0) return false;
  }
  return true;
}

/** A token signed with one of our keys whose exp has passed (ms): it can never come right. */
class Expired {
  readonly expiresAt: number;
  constructor(expiresAt: number) {
    this.expiresAt = expiresAt;
  }
}

/**
 * Verifies a bearer token; undefined for any failure, never saying which (docs/decisions.md §8).
 * Verified tokens are kept: the signature cannot change, and revocation is checked apart. One that has expired stays
 * kept as refused, so a client retrying with a stale token costs a lookup, not a signature check a request; only a
 * token our key signed is kept, so no one can fill the cache with tokens of their own making.
 */
export function tokenVerifier(keys: SigningKeys, issuers: TokenIssuers): TokenVerifier {
  const cache = new Map<string, Principal | Expired>();
  const keep = (token: string, kept: Principal | Expired) => {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(token, kept);
  };

  return async function verifyAccessToken(token, now) {
    const cached = cache.get(token);
    if (cached !== undefined) {
      if (cached.expiresAt <= now) return undefined;
      if (!(cached instanceof Expired)) return cached;
      // Expired, yet now is before its exp: a clock set back (tests do) has the token checked afresh.
    }
    if (!isCanonicalCompact(token)) return undefined;
    let principal: Principal;
    try {
      const { kid } = decodeProtectedHeader(token);
      const key = typeof kid === 'string' ? await keys.find(kid) : undefined;
      if (!key) return undefined;
      const { payload } = await jwtVerify(token, key.secret, {
        algorithms: ['HS256'],
        typ: 'at+jwt',
        audience: AUDIENCE,
        requiredClaims: ['iss', 'exp', 'iat', 'sub'],
        currentDate: new Date(now),
      });
      if (typeof payload.iss !== 'string' || !(await issuers.accepts(payload.iss))) return undefined;
      const claims = v.parse(ClaimsSchema, payload);
      if (claims.sub !== claims.client_id) return undefined;
      const scopes = claims.scope.split(' ').filter(isScope);
      principal = {
        clientId: claims.client_id,
        organizationId: claims.organization_id,
        scopes,
        reports: claims.reports_all ? 'all' : claims.report_ids,
        adAccounts: claims.ad_accounts_all ? 'all' : claims.ad_account_ids,
        expiresAt: claims.exp * 1000,
      };
    } catch (error) {
      // jose checks the signature before the claims: an expired token it names was signed with our key.
      if (error instanceof errors.JWTExpired && error.claim === 'exp' && typeof error.payload.exp === 'number')
        keep(token, new Expired(error.payload.exp * 1000));
      return undefined;
    }
    keep(token, principal);
    return principal;
  };
}
