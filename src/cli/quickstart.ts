import type { Bootstrapped } from './bootstrap.js';

/** Shell lines that create a customer, a plan and a payment with `key`; ready to paste into bash or zsh. */
export function curlExample(key: string, publicUrl: string): string {
  return [
    `PAYTRACK_KEY=${key}`,
    `PAYTRACK_API=${publicUrl}/api/v1`,
    `post() { curl -s "$PAYTRACK_API$1" -H "Authorization: Bearer $PAYTRACK_KEY" -H 'Content-Type: application/json' -d "$2"; }`,
    `id() { node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.id'; }`,
    `CUSTOMER=$(post /customers '{"name":"Ada Obi","phone":"+2348031234567"}' | id)`,
    `TRACK=$(post /tracks '{"customerId":"'$CUSTOMER'","title":"Fridge, 3 instalments","amount":150000,"installments":3}' | id)`,
    `post /payments '{"trackId":"'$TRACK'","amount":50000,"method":"cash"}'; echo`,
    `curl -s "$PAYTRACK_API/tracks/$TRACK" -H "Authorization: Bearer $PAYTRACK_KEY"; echo`,
  ].join('\n');
}

function settingsOf(workspace: Bootstrapped['workspace']): string {
  return [workspace.default_currency, workspace.timezone, workspace.country].filter(Boolean).join(', ');
}

/** What `serve` prints once, on the first start with an empty database. */
export function bootstrapMessage(created: Bootstrapped, publicUrl: string): string {
  const { workspace, key } = created;
  return [
    '',
    `The database was empty, so paytrack created the workspace '${workspace.name}' (${workspace.id}, ${settingsOf(workspace)})`,
    'and this test API key with all scopes. It is shown only this once; only its hash is stored:',
    '',
    `    ${key.key}`,
    '',
    'Try it: paste these lines into a shell to create a customer, a payment plan and a payment:',
    '',
    curlExample(key.key, publicUrl),
    '',
    `More keys: paytrack key create --workspace ${workspace.id} --mode test|live`,
    `Change its settings: paytrack workspace update ${workspace.id} --name N --currency C --timezone Z --country CC`,
    `API reference: ${publicUrl}/docs`,
    '',
  ].join('\n');
}
