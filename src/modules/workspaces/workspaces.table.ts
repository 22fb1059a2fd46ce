export interface WorkspacesTable {
  id: string;
  name: string;
  default_currency: string;
  timezone: string;
  subscription_plan: string;
  created_at: string;
  updated_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    workspaces: WorkspacesTable;
  }
}
