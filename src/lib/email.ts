import { fullFormats } from 'ajv-formats/dist/formats.js';

/** The form request schemas check with `format: "email"`, so the command line accepts what the API accepts. */
const EMAIL = fullFormats.email as RegExp;

export const EMAIL_MAX_LENGTH = 254;

export function isEmail(text: string): boolean {
  return text.length <= EMAIL_MAX_LENGTH && EMAIL.test(text);
}
