// Numbers and ids written as bytes, as JavaScript's String() writes them, for CSV records made without strings.
import { DECIMALS, PARTS } from '../numberRules.ts';

const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0')).map((hex) => [
  hex.charCodeAt(0),
  hex.charCodeAt(1),
]);
const HIGH = Uint8Array.from(HEX, ([high]) => high);
const LOW = Uint8Array.from(HEX, ([, low]) => low);

/** A uuid's sixteen bytes as its text, lower-case hex in groups of 8-4-4-4-12. */
export function writeUuid(data: Uint8Array, from: number, out: Uint8Array, at: number): number {
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = MINUS;
    const byte = data[from + i];
    out[at++] = HIGH[byte];
    out[at++] = LOW[byte];
  }
  return at;
}

/** The most bytes writeTidied writes: String() of a double is at most 25 characters ("-1.2345678901234567e-300"). */
export const NUMBER_BYTES = 25;

/**
 * n's decimal digits (n a whole number from 0 to 2^53) at out[at..]; returns where they end. Below 2^31 in 32-bit
 * integer arithmetic: a double's % is a call into C, and a million rows' numbers spent most of their time in it.
 */
function writeDigits(n: number, out: Uint8Array, at: number): number {
  if (n >= 2 ** 31) {
    let end = at;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) end++;
    for (let i = end, rest = n; i >= at; i--, rest = Math.floor(rest / 10)) out[i] = ZERO + (rest % 10);
    return end + 1;
  }
  let rest = n | 0;
  let end = at;
  for (let left = rest; left >= 10; left = (left / 10) | 0) end++;
  for (let i = end; i >= at; i--) {
    const tens = (rest / 10) | 0;
    out[i] = ZERO + rest - tens * 10;
    rest = tens;
  }
  return end + 1;
}

export function writeAscii(text: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}

/**
 * Writes String(tidy(value)) (numberRules.ts), nothing for null or a value tidy drops; returns where it ends. Without
 * the string for the numbers a CSV holds: a whole number below 9e9 is itself when tidied (times PARTS, a million, it is
 * still exact), and any other value tidies to k / PARTS for k = Math.round(value × PARTS), which for |k| < 1e15 has at
 * most fifteen significant digits: no shorter decimal reads back as the same double, so JavaScript writes exactly k's
 * digits with the point DECIMALS places from the right (trailing zeros dropped). Other values take the string.
 */
export function writeTidied(value: number | null, out: Uint8Array, at: number): number {
  if (value === null || !Number.isFinite(value)) return at;
  if (Number.isInteger(value) && Math.abs(value) < 9e9) {
    if (value < 0) out[at++] = MINUS;
    return writeDigits(Math.abs(value), out, at);
  }
  const k = Math.round(value * PARTS);
  if (Math.abs(k) >= 1e15) return writeAscii(String(k / PARTS), out, at);
  if (k < 0) out[at++] = MINUS;
  const magnitude = Math.abs(k);
  // The quotient below 1e9 is a double's floor exactly (its ulp is under the 1 / PARTS a fraction could round up by).
  const whole = Math.floor(magnitude / PARTS);
  let fraction = (magnitude - whole * PARTS) | 0;
  at = writeDigits(whole, out, at);
  if (fraction === 0) return at;
  out[at++] = DOT;
  let places = DECIMALS;
  for (let tens = (fraction / 10) | 0; fraction === tens * 10; tens = (fraction / 10) | 0) {
    fraction = tens;
    places--;
  }
  for (let i = at + places - 1; i >= at; i--) {
    const tens = (fraction / 10) | 0;
    out[i] = ZERO + fraction - tens * 10;
    fraction = tens;
  }
  return at + places;
}
