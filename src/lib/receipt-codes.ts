import { randomInt } from 'node:crypto';
import { publicUrl } from './public-url.js';

/** Crockford's base 32: no I, L, O or U, so a code read aloud or typed from paper is not mistaken. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 12;

/** A receipt's verification code: 12 characters, 60 random bits, stored and looked up in this form. */
export function newReceiptCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** `7KQ2M9XD4T1B` -> `7KQ2-M9XD-4T1B`, as receipts print it. */
export const displayReceiptCode = (code: string) => code.replace(/(.{4})(?=.)/g, '$1-');

/**
 * A code as a person may type it (lower case, dashes or spaces, O for 0, I or L for 1) in its stored form; null
 * for text no code has.
 */
export function readReceiptCode(text: string): string | null {
  const code = text.replace(/[\s-]/g, '').toUpperCase().replace(/O/g, '0').replace(/[IL]/g, '1');
  return /^[0-9A-HJKMNP-TV-Z]{12}$/.test(code) ? code : null;
}

/** Receipt number 123 -> `R-000123` (wider once past a million). */
export const receiptNumberText = (number: number) => `R-${String(number).padStart(6, '0')}`;

/** A receipt's public page, where anyone holding its code checks it. */
export const receiptUrl = (code: string) => `${publicUrl()}/r/${code}`;
