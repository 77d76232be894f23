// Client ids and secrets: generated from the Web Crypto API, stored as SHA-256, compared in constant time.
const bytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));

const hex = (data: Uint8Array) => Array.from(data, (b) => b.toString(16).padStart(2, '0')).join('');

const base64url = (data: Uint8Array) =>
  btoa(String.fromCharCode(...data))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

export const newClientId = () => `rdc_${hex(bytes(16))}`;

/** docs/decisions.md §9: `rds_` and 256 random bits. */
export const newClientSecret = () => `rds_${base64url(bytes(32))}`;

export const newSigningSecret = () => bytes(32);

export const newKeyId = () => `k_${hex(bytes(8))}`;

export async function hashSecret(secret: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret)));
}

/** Compares two digests without an early exit, so timing says nothing of where they differ. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ (b[i % b.length] ?? 0);
  return diff === 0;
}

/** True when the secret matches one of the hashes; every hash is compared, whatever matched first. */
export async function secretMatches(secret: string, hashes: Uint8Array[]): Promise<boolean> {
  const digest = await hashSecret(secret);
  let found = false;
  for (const hash of hashes) found = constantTimeEqual(digest, hash) || found;
  return found;
}
