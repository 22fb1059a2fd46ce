import type { TestApp } from './app.js';

/** What payer pages show of a business, set straight in the database as the account settings would set them. */
export interface BusinessSettings {
  name?: string;
  timezone?: string;
  support_email?: string | null;
  support_phone?: string | null;
  brand_color?: string | null;
}

export async function setBusiness(
  t: TestApp,
  workspaceId: string,
  settings: BusinessSettings,
): Promise<void> {
  await t.ctx.db.updateTable('workspaces').set(settings).where('id', '=', workspaceId).execute();
}
