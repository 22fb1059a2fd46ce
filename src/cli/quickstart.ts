import type { Bootstrapped } from './bootstrap.js';

/** Ada Obi's number as people write it where the workspace is: locally in Nigeria, else with its country code. */
function examplePhone(country: string | null): string {
  return country === 'NG' ? '0803 123 4567' : '+2348031234567';
}

/**
 * Shell lines that define the helpers the README's examples use (`post`, `get`, `id`, `field`) and create a
 * customer, a plan and a payment with `key`; ready to paste into bash or zsh.
 */
export function curlExample(key: string, publicUrl: string, country: string | null = null): string {
  return [
    `PAYTRACK_KEY=${key}`,
    `PAYTRACK_API=${publicUrl}/api/v1`,
    `post() { curl -s "$PAYTRACK_API$1" -H "Authorization: Bearer $PAYTRACK_KEY" -H 'Content-Type: application/json' -d "$2"; }`,
    `get() { curl -s "$PAYTRACK_API$1" -H "Authorization: Bearer $PAYTRACK_KEY"; echo; }`,
    `id() { node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).data.id'; }`,
    `field() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8'))$1"; }`,
    `CUSTOMER=$(post /customers '{"name":"Ada Obi","phone":"${examplePhone(country)}"}' | id)`,
    `TRACK=$(post /tracks '{"customerId":"'$CUSTOMER'","title":"Fridge, 3 instalments","amount":150000,"installments":3}' | id)`,
    `post /payments '{"trackId":"'$TRACK'","amount":50000,"method":"cash"}'; echo`,
    `get /tracks/$TRACK`,
  ].join('\n');
}

function settingsOf(workspace: Bootstrapped['workspace']): string {
  return [workspace.default_currency, workspace.timezone, workspace.country].filter(Boolean).join(', ');
}

/** What `serve` prints once, on the first start with an empty database. */
export function bootstrapMessage(created: Bootstrapped, publicUrl: string): string {
  const { workspace, key, owner } = created;
  return [
    '',
    `The database was empty, so paytrack created the workspace '${workspace.name}' (${workspace.id}, ${settingsOf(workspace)}).`,
    '',
    `Open the console: this link sets the password of its owner, ${owner.email}, and signs you in (it works once, for 24 hours):`,
    '',
    `    ${publicUrl}/console/set-password/${owner.token}`,
    '',
    `Then sign in at ${publicUrl}/console. Another link: paytrack user create --workspace ${workspace.id} --email E --role owner`,
    '',
    'For developers, this test API key with all scopes. It is shown only this once; only its hash is stored:',
    '',
    `    ${key.key}`,
    '',
    'Try it: paste these lines into a shell to create a customer, a payment plan and a payment:',
    '',
    curlExample(key.key, publicUrl, workspace.country),
    '',
    `More keys: paytrack key create --workspace ${workspace.id} --mode test|live`,
    `Change its settings: paytrack workspace update ${workspace.id} --name N --currency C --timezone Z --country CC`,
    `API reference: ${publicUrl}/docs`,
    '',
  ].join('\n');
}
