import { type CountryCode, getCountries, parsePhoneNumberFromString } from 'libphonenumber-js';

const COUNTRIES: ReadonlySet<string> = new Set(getCountries());

/** An ISO 3166-1 alpha-2 code, in capitals, of a country with a telephone numbering plan. */
export function isCountry(code: string): code is CountryCode {
  return /^[A-Z]{2}$/.test(code) && COUNTRIES.has(code);
}

export const COUNTRY_PROBLEM = 'must be an ISO 3166-1 alpha-2 country code in capitals, such as NG or KE';

export type PhoneReading = { e164: string } | { problem: string };

/**
 * A phone number as people write it, in E.164: with `+` and its country code, or without them in the
 * workspace's `country` (`0803 123 4567` in NG is +2348031234567). Without a country only the international
 * form can be read, and the problem says what to do.
 */
export function readPhone(phone: string, country: string | null): PhoneReading {
  const text = phone.trim();
  const defaultCountry = country !== null && isCountry(country) ? country : undefined;
  const parsed = parsePhoneNumberFromString(text, defaultCountry ? { defaultCountry } : {});
  if (parsed?.isValid()) return { e164: parsed.number };
  if (!defaultCountry && !text.startsWith('+') && /\d/.test(text)) {
    return {
      problem:
        'has no country code: write it with + and the country code (such as +2348031234567), ' +
        "or set the workspace's country (PATCH /account) so local numbers are read in it",
    };
  }
  return {
    problem: defaultCountry
      ? `must be a phone number valid in ${defaultCountry} (such as 0803 123 4567 in NG) or an international one such as +2348031234567`
      : 'must be an international phone number such as +2348031234567',
  };
}
