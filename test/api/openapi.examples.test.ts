import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/**
 * Every JSON request body and every JSON success response of the document shows an example, and the example is
 * valid for its own schema. The convention is the one @fastify/swagger writes for a TypeBox schema with one entry
 * in `examples`: `example` on the media type.
 */

// ajv-formats is CommonJS: its default export is the function under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

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

interface JsonMedia {
  /** `POST /api/v1/customers request` or `GET /api/v1/customers 200`. */
  where: string;
  media: any;
}

/** Every request body and 2xx response of the document given as application/json. */
function jsonMedia(): JsonMedia[] {
  const found: JsonMedia[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = (item as any)[method];
      if (!operation) continue;
      const name = `${method.toUpperCase()} ${path}`;
      const body = operation.requestBody?.content?.['application/json'];
      if (body) found.push({ where: `${name} request`, media: body });
      for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (/^2\d\d$/.test(status) && media) found.push({ where: `${name} ${status}`, media });
      }
    }
  }
  return found;
}

/** Ajv for JSON Schema 2020-12 with the document's components, so `$ref`s resolve as a client resolves them. */
function validatorFor() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'paytrack-openapi', components: doc.components });
  return (schema: any) =>
    ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"paytrack-openapi#/components/')),
    );
}

describe('examples in the OpenAPI document', () => {
  test('the document has JSON request bodies and responses to check', () => {
    const media = jsonMedia();
    assert.ok(media.filter((m) => m.where.endsWith('request')).length >= 15, `${media.length}`);
    assert.ok(media.filter((m) => !m.where.endsWith('request')).length >= 50, `${media.length}`);
  });

  test('every JSON request body and success response has an example on its media type', () => {
    const missing = jsonMedia()
      .filter(({ media }) => media.example === undefined)
      .map(({ where }) => where);
    assert.deepEqual(missing, [], `without an example:\n${missing.join('\n')}`);
  });

  test('every example is valid for its own schema', () => {
    const compile = validatorFor();
    const invalid: string[] = [];
    for (const { where, media } of jsonMedia()) {
      if (media.example === undefined) continue;
      const validate = compile(media.schema);
      if (!validate(media.example)) {
        invalid.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
      }
    }
    assert.deepEqual(invalid, [], invalid.join('\n'));
  });

  test('a success example is a whole answer: the envelope around a result', () => {
    for (const { where, media } of jsonMedia()) {
      if (where.endsWith('request') || where.includes('/download')) continue;
      assert.equal(media.example?.success, true, where);
      assert.match(media.example?.request_id ?? '', /^req_/, where);
      assert.ok('data' in (media.example ?? {}), where);
    }
  });

  test('the check catches an example its schema refuses', () => {
    const compile = validatorFor();
    const customer = jsonMedia().find((m) => m.where === 'POST /api/v1/customers 201');
    assert.ok(customer);
    const validate = compile(customer.media.schema);
    assert.equal(validate(customer.media.example), true);
    assert.equal(
      validate({ ...customer.media.example, data: { ...customer.media.example.data, id: 42 } }),
      false,
    );
  });
});
