import type { ContactChannel } from './contact-policy.js';

/**
 * Whether each new receipt is sent to its customer on its own, and on which channels, in order: the first the
 * customer can be reached on and has not opted out of (e-mail carries the PDF, SMS and WhatsApp the link).
 */
export interface ReceiptSettings {
  send: boolean;
  channels: ContactChannel[];
}

export const DEFAULT_RECEIPT_SETTINGS: ReceiptSettings = {
  send: false,
  channels: ['email', 'whatsapp', 'sms'],
};

/** The stored settings (JSON, or null for the defaults) as they apply. */
export function receiptSettingsOf(stored: string | null): ReceiptSettings {
  return stored === null
    ? DEFAULT_RECEIPT_SETTINGS
    : { ...DEFAULT_RECEIPT_SETTINGS, ...(JSON.parse(stored) as Partial<ReceiptSettings>) };
}

/** The settings after a change: what is given replaces, what is left out stays; null restores the defaults. */
export function changeReceiptSettings(
  current: string | null,
  change: Partial<ReceiptSettings> | null,
): string | null {
  if (change === null) return null;
  return JSON.stringify({ ...receiptSettingsOf(current), ...change });
}
