import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** E.164 form of an international phone number, or null when it is not a valid one. */
export function toE164(phone: string): string | null {
  const parsed = parsePhoneNumberFromString(phone.trim());
  return parsed?.isValid() ? parsed.number : null;
}
