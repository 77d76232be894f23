// POST /api/connect/token: the OAuth 2.0 client credentials grant (RFC 6749 §4.4), errors per §5.2.
import type { Answer } from '../http/answer.ts';
import { issueAccessToken, type TokenGrant, type TokenIssuers } from '../auth/accessTokens.ts';
import { BodyTooLarge, readBodyText } from '../http/body.ts';
import type { Context } from '../http/context.ts';
import type { Sql } from '../store/database.ts';
import { query, type QueryRow } from '../store/queries.ts';
import { json } from '../http/respond.ts';
import { AUDIENCE, isScope, type Scope } from '../auth/scopes.ts';
import { secretMatches } from '../auth/secrets.ts';
import type { SigningKeys } from '../auth/signingKeys.ts';
import { TimedOut, withTimeout } from '../store/timeout.ts';
import { isUnavailable } from '../store/errors.ts';

/** A body larger than this is refused unread, and the connection closed (docs/decisions.md §13). */
export const TOKEN_BODY_LIMIT = 16 * 1024;
/** A body that has not arrived by then is refused: a client that trickles it holds a connection for nothing. */
const BODY_TIMEOUT_MS = 10_000;
/** The store's answer (client and signing key): past this the endpoint says it is temporarily unavailable. */
const STORE_TIMEOUT_MS = 3000;
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

type OAuthError =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'temporarily_unavailable'
  | 'server_error';

function oauthError(
  error: OAuthError,
  description: string,
  extra: { status?: number; headers?: Record<string, string> } = {},
) {
  return json(
    { error, error_description: description },
    { status: extra.status ?? (error === 'invalid_client' ? 401 : 400), headers: { ...NO_STORE, ...extra.headers } },
  );
}

/**
 * The token endpoint never answers a problem document (docs/decisions.md §13): whatever goes wrong is an RFC 6749 §5.2
 * object. A store that is down or slow is `temporarily_unavailable` (the error code RFC 6749 §4.1.2.1 defines), 503.
 */
export function tokenFailure(error: unknown): Answer {
  if (error instanceof Error && !(error instanceof TimedOut) && !isUnavailable(error)) {
    return oauthError('server_error', 'The token could not be issued.', { status: 500 });
  }
  return oauthError('temporarily_unavailable', 'The credential store is not answering; retry shortly.', {
    status: 503,
    headers: { 'retry-after': '5' },
  });
}

/** A client and its live secrets, as the query describes them. */
type ClientRow = QueryRow<'find-client-credentials'>;

/** RFC 6749 §2.3.1: client_id and client_secret, each form-urlencoded, joined by a colon, in Basic. */
function basicCredentials(header: string | null): { id: string; secret: string } | 'malformed' | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return /^Basic\b/i.test(header) ? 'malformed' : undefined;
  let decoded: string;
  try {
    decoded = atob(match[1]);
  } catch {
    return 'malformed';
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const form = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: form(decoded.slice(0, colon)), secret: form(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

export type TokenDeps = { sql: Sql; keys: SigningKeys; clock: () => number; issuers: TokenIssuers; ttlSeconds: number };

/**
 * A step's refusal: the answer it gives instead of a value. A class of its own, as the answer's own class is the
 * runtime's (whatwg-node's Answer on Node), which instanceof Answer would not recognise.
 */
class Refused {
  constructor(readonly response: Answer) {}
}
const refuse = (response: Answer) => new Refused(response);

/** The form of a token request, or the refusal of a body that is not one (RFC 6749 §4.4.2, §3.2). */
async function readForm(request: Context['request']): Promise<URLSearchParams | Refused> {
  if (request.method !== 'POST') {
    return refuse(
      oauthError('invalid_request', 'The token endpoint accepts POST only.', {
        status: 405,
        headers: { allow: 'POST' },
      }),
    );
  }
  const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    return refuse(oauthError('invalid_request', 'The body must be application/x-www-form-urlencoded.'));
  }
  let body: string;
  try {
    body = await withTimeout(readBodyText(request, TOKEN_BODY_LIMIT), BODY_TIMEOUT_MS);
  } catch (error) {
    // The rest of the body is not read: the connection is closed after the answer (RFC 9112 §9.6).
    const closing = { headers: { connection: 'close' } };
    if (error instanceof TimedOut) {
      return refuse(
        oauthError('invalid_request', `The request body did not arrive within ${BODY_TIMEOUT_MS / 1000} s.`, closing),
      );
    }
    if (error instanceof BodyTooLarge) {
      return refuse(
        oauthError('invalid_request', `The request body is larger than ${TOKEN_BODY_LIMIT} bytes.`, closing),
      );
    }
    return refuse(oauthError('invalid_request', 'The request body is not valid UTF-8.'));
  }
  const form = new URLSearchParams(body);
  // RFC 6749 §3.2: parameters must not be sent more than once.
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1)
      return refuse(oauthError('invalid_request', `The parameter ${name} is repeated.`));
  }
  const grantType = form.get('grant_type');
  if (!grantType) return refuse(oauthError('invalid_request', 'grant_type is required.'));
  if (grantType !== 'client_credentials') {
    return refuse(oauthError('unsupported_grant_type', 'Only the client_credentials grant is supported.'));
  }
  return form;
}

/** What the client says it is: HTTP Basic or form fields, one method a request (RFC 6749 §2.3). */
type Credentials = { id: string; secret: string; challenge: { headers?: Record<string, string> } };

function credentials(request: Context['request'], form: URLSearchParams): Credentials | Refused {
  const basic = basicCredentials(request.headers.get('authorization'));
  const usedBasic = basic !== undefined;
  const challenge = usedBasic ? { headers: { 'www-authenticate': 'Basic realm="readout", charset="UTF-8"' } } : {};
  if (basic === 'malformed') return refuse(oauthError('invalid_client', 'Client authentication failed.', challenge));
  if (basic && (form.has('client_id') || form.has('client_secret'))) {
    if (form.get('client_id') !== basic.id || form.has('client_secret')) {
      return refuse(oauthError('invalid_request', 'Authenticate with HTTP Basic or with form fields, not both.'));
    }
  }
  const id = basic ? basic.id : form.get('client_id');
  const secret = basic ? basic.secret : form.get('client_secret');
  if (!id || !secret) {
    return refuse(
      oauthError(
        usedBasic ? 'invalid_client' : 'invalid_request',
        'client_id and client_secret are required.',
        challenge,
      ),
    );
  }
  return { id, secret, challenge };
}

/** The scopes a token gets: those asked for, each granted to the client, or all the client holds. */
function grantedScopes(form: URLSearchParams, client: ClientRow): Scope[] | Refused {
  const requested = form.get('scope');
  if (requested === null || requested.trim() === '') return client.scopes.filter(isScope);
  const names = [...new Set(requested.trim().split(/\s+/))];
  if (names.includes(AUDIENCE)) {
    return refuse(
      oauthError('invalid_request', `${AUDIENCE} is an audience, added by itself; it cannot be requested as a scope.`),
    );
  }
  const refused = names.filter((name) => !isScope(name) || !client.scopes.includes(name));
  if (refused.length) return refuse(oauthError('invalid_scope', `Not granted to this client: ${refused.join(' ')}.`));
  return names as Scope[];
}

/**
 * A refused client is answered no sooner than this after its request began: an unknown id skips the row and the
 * arrays a known one reads, and without a floor the difference (about 0.1 ms) told which ids exist.
 */
export const REFUSAL_FLOOR_MS = 5;

/** Compared with an unknown client's secret, so that it is hashed and compared once, as a known client's is. */
const STAND_IN_HASHES = [new Uint8Array(32)];

export function tokenEndpoint({ sql, keys, clock, issuers, ttlSeconds }: TokenDeps) {
  /** The client whose secret matches, or the refusal; the same work, and time, whether or not the client exists. */
  async function authenticateClient(given: Credentials, now: number): Promise<ClientRow | Refused> {
    const began = performance.now();
    // No client id is that long or holds U+0000 (which PostgreSQL text cannot): such an id is an unknown client.
    const couldBeClientId = given.id.length <= 64 && !given.id.includes('\u0000');
    let client: ClientRow | undefined;
    try {
      [client] = couldBeClientId
        ? await withTimeout(
            query(sql, 'find-client-credentials', { id: given.id, now: new Date(now) }),
            STORE_TIMEOUT_MS,
          )
        : [];
    } catch (error) {
      return refuse(tokenFailure(error));
    }
    const hashes = client ? client.secret_hashes.map((h) => new Uint8Array(h)) : STAND_IN_HASHES;
    // The secret is hashed and compared even for an unknown client, so the answer takes the same time.
    const matches = await secretMatches(given.secret, hashes);
    if (!client || !matches || client.revoked_at) {
      // A timer may fire up to a millisecond early (the event loop's cached clock): waited for until the floor is met.
      const left = () => began + REFUSAL_FLOOR_MS - performance.now();
      while (left() > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(left())));
      return refuse(oauthError('invalid_client', 'Client authentication failed.', given.challenge));
    }
    return client;
  }

  /** A signed access token for the grant, once this process's issuer is registered. */
  async function issue(client: ClientRow, scopes: Scope[], now: number): Promise<string | Refused> {
    const grant: TokenGrant = {
      clientId: client.id,
      organizationId: client.organization_id,
      scopes,
      reportIds: client.report_ids,
      reportsAll: client.reports_all,
      adAccountIds: client.ad_account_ids,
      adAccountsAll: client.ad_accounts_all,
    };
    try {
      const signing = issuers
        .register()
        .then(() => issueAccessToken(keys, grant, { issuer: issuers.own, now, ttlSeconds }));
      return await withTimeout(signing, STORE_TIMEOUT_MS);
    } catch (error) {
      return refuse(tokenFailure(error));
    }
  }

  // The request, then who the client is, then what it may have: each step answers a refusal of its own.
  return async function postToken(ctx: Context): Promise<Answer> {
    const form = await readForm(ctx.request);
    if (form instanceof Refused) return form.response;
    const given = credentials(ctx.request, form);
    if (given instanceof Refused) return given.response;
    const now = clock();
    const client = await authenticateClient(given, now);
    if (client instanceof Refused) return client.response;
    const scopes = grantedScopes(form, client);
    if (scopes instanceof Refused) return scopes.response;
    ctx.log.clientId = client.id;
    const accessToken = await issue(client, scopes, now);
    if (accessToken instanceof Refused) return accessToken.response;
    return json(
      { access_token: accessToken, token_type: 'Bearer', expires_in: ttlSeconds, scope: scopes.join(' ') },
      { headers: NO_STORE },
    );
  };
}
