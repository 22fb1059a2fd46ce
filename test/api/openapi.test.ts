import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let doc: any;
before(async () => {
  t = await buildTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  assert.equal(res.statusCode, 200);
  doc = JSON.parse(res.body);
});
after(() => t.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every route the app serves under /api/v1, from its own route tree, as `METHOD /path/{param}`. */
function servedOperations(): string[] {
  const lines = t.app.printRoutes({ commonPrefix: false }).split('\n');
  const stack: string[] = [];
  const operations: string[] = [];
  for (const line of lines) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const path = stack.join('');
    for (const method of (match[3] ?? '').split(', ').filter((m) => m && m !== 'HEAD')) {
      if (path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json') {
        operations.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
      }
    }
  }
  return operations.sort();
}

function operations(): [string, string, any][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as any)[m]).map((m): [string, string, any] => [path, m, (item as any)[m]]),
  );
}

function resolve(node: any): any {
  if (node?.$ref) {
    const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(node.$ref) ?? [];
    return doc.components[kind as string][name as string];
  }
  return node;
}

describe('the OpenAPI document', () => {
  test('is OpenAPI 3.1, titled paytrack API, with bearer keys and the error table', () => {
    assert.match(doc.openapi, /^3\.1\./);
    assert.equal(doc.info.title, 'paytrack API');
    assert.equal(doc.components.securitySchemes.apiKey.scheme, 'bearer');
    for (const code of [
      'amount_exceeds_balance',
      'idempotency_key_reused',
      'rate_limited',
      'internal_error',
    ]) {
      assert.match(doc.info.description, new RegExp(`\\| \`${code}\` \\|`), code);
    }
  });

  test('documents every route the service serves, and only those', () => {
    const documented = operations()
      .map(([path, method]) => `${method.toUpperCase()} ${path}`)
      .sort();
    assert.deepEqual(documented, servedOperations());
    assert.ok(documented.includes('POST /api/v1/payments/{id}/reverse'));
  });

  test('names its schemas, so generated clients get named types', () => {
    for (const name of [
      'Customer',
      'Track',
      'Payment',
      'PaymentCreate',
      'LedgerEntry',
      'WebhookEndpoint',
      'Event',
    ]) {
      assert.ok(doc.components.schemas[name], `${name} is a named schema`);
    }
    const created = doc.paths['/api/v1/customers'].post.responses['201'].content['application/json'].schema;
    assert.deepEqual(created.properties.data, { $ref: '#/components/schemas/Customer' });
  });

  test('every operation has an id, a tag, a summary, a description and the scope it needs', () => {
    const ids = new Set<string>();
    const tags = new Set(doc.tags.map((tag: { name: string }) => tag.name));
    for (const [path, method, op] of operations()) {
      const where = `${method} ${path}`;
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, where);
      assert.ok(!ids.has(op.operationId), `${where}: operationId used twice`);
      ids.add(op.operationId);
      assert.ok(op.tags?.length === 1 && tags.has(op.tags[0]), `${where}: tag`);
      assert.ok(op.summary, `${where}: summary`);
      assert.ok(op.description, `${where}: description`);
      if (op['x-public']) {
        assert.deepEqual(op.security, [], `${where}: served without a key`);
        continue;
      }
      assert.match(op['x-required-scope'], /^[a-z]+:(read|write)$/, where);
      assert.deepEqual(op.security, [{ apiKey: [op['x-required-scope']] }], where);
    }
    assert.equal(doc.paths['/api/v1/payments'].post['x-required-scope'], 'payments:write');
    assert.equal(doc.paths['/api/v1/tracks/{id}/payments'].get['x-required-scope'], 'tracks:read');
  });

  test('every status an operation can answer has its own response, errors with their codes as an enum', () => {
    for (const [path, method, op] of operations()) {
      const where = `${method} ${path}`;
      assert.ok(!op.responses['4XX'] && !op.responses['5XX'], `${where}: no catch-all`);
      for (const [status, response] of Object.entries(op.responses)) {
        const r = response as any;
        assert.ok(r.description && r.description !== 'Default Response', `${where} ${status}: description`);
        assert.ok(r.headers?.['X-Request-Id'], `${where} ${status}: X-Request-Id header`);
        if (Number(status) >= 400) {
          const code = r.content['application/json'].schema.properties.error.properties.code;
          assert.ok(Array.isArray(code.enum) && code.enum.length > 0, `${where} ${status}: codes`);
        }
      }
      for (const status of ['401', '403', '429', '500'])
        assert.ok(op.responses[status], `${where}: ${status}`);
    }
    const pay = doc.paths['/api/v1/payments'].post.responses;
    assert.deepEqual(pay['422'].content['application/json'].schema.properties.error.properties.code.enum, [
      'validation_error',
      'idempotency_key_reused',
      'amount_exceeds_balance',
    ]);
    assert.ok(pay['429'].headers['Retry-After']);
    assert.ok(pay['201'].headers['Idempotent-Replayed']);
    assert.ok(pay['201'].headers['X-RateLimit-Remaining']);
  });

  test('keyed POST operations take an Idempotency-Key and every operation an X-Request-Id', () => {
    for (const [path, method, op] of operations()) {
      const names = op.parameters.map((p: unknown) => resolve(p).name);
      assert.ok(names.includes('X-Request-Id'), `${method} ${path}`);
      assert.equal(
        names.includes('Idempotency-Key'),
        method === 'post' && !op['x-public'],
        `${method} ${path}`,
      );
    }
  });

  test('every request body has a realistic example that its own schema accepts', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('date-time', true).addFormat('date', true).addFormat('email', true).addFormat('uri', true);
    const exampleOf = (media: { example?: unknown; schema: unknown }) =>
      media.example ?? resolve(media.schema).examples?.[0];
    for (const [path, method, op] of operations()) {
      if (!op.requestBody) continue;
      const media = op.requestBody.content['application/json'];
      const example = exampleOf(media);
      assert.ok(example, `${method} ${path}: example`);
      const validate = ajv.compile(resolve(media.schema));
      assert.ok(validate(example), `${method} ${path}: ${ajv.errorsText(validate.errors)}`);
    }
    const create = exampleOf(doc.paths['/api/v1/customers'].post.requestBody.content['application/json']);
    assert.match(create.phone, /^\+234/);
    const plan = exampleOf(doc.paths['/api/v1/tracks'].post.requestBody.content['application/json']);
    assert.equal(plan.currency, 'NGN');
  });

  test('has a webhooks section with each event type and the object it carries', () => {
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...t.ctx.registry.eventTypes].sort());
    const paid = doc.webhooks['payment.recorded'].post.requestBody.content['application/json'].schema;
    assert.equal(paid.properties.type.const, 'payment.recorded');
    assert.deepEqual(paid.properties.data.properties.object, { $ref: '#/components/schemas/PaymentEvent' });
    assert.ok(doc.components.schemas.PaymentEvent.properties.balanceAfter);
  });
});

describe('GET /docs', () => {
  test('serves the reference page titled paytrack API, with nothing loaded from elsewhere', async () => {
    const entry = await t.app.inject({ method: 'GET', url: '/docs' });
    const pageUrl =
      entry.statusCode === 200
        ? '/docs'
        : new URL(entry.headers.location as string, 'http://x/docs/').pathname;
    const page = await t.app.inject({ method: 'GET', url: pageUrl });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<title>paytrack API<\/title>/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    assert.ok(assets.length > 0);
    for (const asset of assets) {
      assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} is loaded from elsewhere`);
      const url = new URL(asset, `http://x${pageUrl}`).pathname;
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      if (url.endsWith('.css')) assert.doesNotMatch(res.body, /@import|url\((["']?)(https?:)?\/\//, url);
    }
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.doesNotMatch(
      initializer.body,
      /url"?\s*[:=]\s*["'](https?:)?\/\//i,
      'the document is read from this server',
    );
    assert.match(initializer.body, /"validatorUrl":null/);
    const spec = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(JSON.parse(spec.body).info.title, 'paytrack API');
  });
});
