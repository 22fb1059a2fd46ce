import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

describe('loadConfig', () => {
  test('defaults', () => {
    const config = loadConfig({});
    assert.deepEqual(config, {
      port: 3000,
      host: '0.0.0.0',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      publicUrl: 'http://localhost:3000',
      rateLimitPerMinute: undefined,
      redisUrl: undefined,
      webhookAllowPrivate: false,
      smtpUrl: undefined,
      mailFrom: 'paytrack <no-reply@localhost>',
      messageProviderUrl: undefined,
      messageProviderApiKey: undefined,
      messageProviderName: 'messages',
      smsFrom: undefined,
      whatsappFrom: undefined,
      logLevel: 'info',
      embeddedWorker: true,
      failedAuthPerMinute: 60,
      metricsToken: undefined,
      exportSigningSecret: undefined,
      testClockAdvanceBudget: 200,
      trustProxy: false,
      firstWorkspace: {},
      secretKeys: [],
      paystackApiUrl: 'https://api.paystack.co',
      stripeApiUrl: 'https://api.stripe.com',
      providerTimeoutMs: 15_000,
      twilioApiUrl: 'https://api.twilio.com',
      africastalkingApiUrl: 'https://api.africastalking.com',
    });
    assert.ok(Object.isFrozen(config));
  });

  test('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATA_DIR: '/tmp/paytrack-data',
      DATABASE_URL: 'postgres://u@db:5432/paytrack',
      PUBLIC_URL: 'https://pay.example.com/',
      RATE_LIMIT_PER_MINUTE: '120',
      REDIS_URL: 'redis://cache:6379',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SMTP_URL: 'smtp://mail:25',
      MAIL_FROM: 'Acme Collections <billing@acme.example>',
      MESSAGE_PROVIDER_URL: 'https://api.messages.example/v1//',
      MESSAGE_PROVIDER_API_KEY: 'mpk_live_123',
      MESSAGE_PROVIDER_NAME: 'acme-messages',
      SMS_FROM: 'ACME',
      WHATSAPP_FROM: '+2348000000001',
      LOG_LEVEL: 'warn',
      EMBEDDED_WORKER: 'false',
      FAILED_AUTH_PER_MINUTE: '20',
      METRICS_TOKEN: 'a-long-enough-scrape-token',
      EXPORT_SIGNING_SECRET: 'an-export-signing-secret-of-32-chars',
      TEST_CLOCK_ADVANCE_BUDGET: '1000',
      TRUST_PROXY: '10.0.0.5',
      PAYTRACK_NAME: ' Mama Put Ventures ',
      PAYTRACK_CURRENCY: 'NGN',
      PAYTRACK_TIMEZONE: 'Africa/Lagos',
      PAYTRACK_COUNTRY: 'NG',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, '/tmp/paytrack-data');
    assert.equal(config.databaseUrl, 'postgres://u@db:5432/paytrack');
    assert.equal(config.publicUrl, 'https://pay.example.com');
    assert.equal(config.rateLimitPerMinute, 120);
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.webhookAllowPrivate, true);
    assert.equal(config.smtpUrl, 'smtp://mail:25');
    assert.equal(config.mailFrom, 'Acme Collections <billing@acme.example>');
    assert.equal(config.messageProviderUrl, 'https://api.messages.example/v1');
    assert.equal(config.messageProviderApiKey, 'mpk_live_123');
    assert.equal(config.messageProviderName, 'acme-messages');
    assert.equal(config.smsFrom, 'ACME');
    assert.equal(config.whatsappFrom, '+2348000000001');
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.embeddedWorker, false);
    assert.equal(config.failedAuthPerMinute, 20);
    assert.equal(config.metricsToken, 'a-long-enough-scrape-token');
    assert.equal(config.exportSigningSecret, 'an-export-signing-secret-of-32-chars');
    assert.equal(config.testClockAdvanceBudget, 1000);
    assert.deepEqual(config.trustProxy, ['10.0.0.5']);
    assert.deepEqual(config.firstWorkspace, {
      name: 'Mama Put Ventures',
      currency: 'NGN',
      timezone: 'Africa/Lagos',
      country: 'NG',
    });
  });

  test('PUBLIC_URL defaults to the configured port', () => {
    assert.equal(loadConfig({ PORT: '4000' }).publicUrl, 'http://localhost:4000');
  });

  test('every bad variable is listed together in one error', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://localhost/db',
      LOG_LEVEL: 'loud',
      PUBLIC_URL: 'not a url',
      REDIS_URL: 'http://cache',
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_PRIVATE: 'yes',
      EMBEDDED_WORKER: 'maybe',
      FAILED_AUTH_PER_MINUTE: '-1',
      METRICS_TOKEN: 'short',
      SMTP_URL: 'http://mail:25',
      MESSAGE_PROVIDER_URL: 'ftp://messages.example',
      TEST_CLOCK_ADVANCE_BUDGET: 'all',
      TRUST_PROXY: 'true',
      PAYTRACK_NAME: '   ',
      PAYTRACK_CURRENCY: 'naira',
      PAYTRACK_TIMEZONE: 'Lagos',
      PAYTRACK_COUNTRY: 'Nigeria',
    });
    const named = [
      'PORT',
      'DATABASE_URL',
      'LOG_LEVEL',
      'PUBLIC_URL',
      'REDIS_URL',
      'RATE_LIMIT_PER_MINUTE',
      'WEBHOOK_ALLOW_PRIVATE',
      'EMBEDDED_WORKER',
      'FAILED_AUTH_PER_MINUTE',
      'METRICS_TOKEN',
      'SMTP_URL',
      'MESSAGE_PROVIDER_URL',
      'TEST_CLOCK_ADVANCE_BUDGET',
      'TRUST_PROXY',
      'PAYTRACK_NAME',
      'PAYTRACK_CURRENCY',
      'PAYTRACK_TIMEZONE',
      'PAYTRACK_COUNTRY',
    ];
    assert.equal(problems.length, named.length, problems.join('\n'));
    for (const name of named)
      assert.ok(
        problems.some((p) => p.startsWith(`${name} `)),
        `${name} not named`,
      );
  });

  test('the error message lists each problem', () => {
    assert.throws(
      () => loadConfig({ PORT: '70000', RATE_LIMIT_PER_MINUTE: '1.5' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /PORT must be at most 65535/);
        assert.match(error.message, /RATE_LIMIT_PER_MINUTE must be a positive whole number/);
        return true;
      },
    );
  });

  test('SMTP_URL takes smtp:// and smtps:// only', () => {
    assert.equal(
      loadConfig({ SMTP_URL: 'smtps://user:pass@mail.example:465' }).smtpUrl,
      'smtps://user:pass@mail.example:465',
    );
    for (const bad of ['mail.example:25', 'smtp:mail', 'https://mail.example']) {
      assert.deepEqual(problemsOf({ SMTP_URL: bad }), ['SMTP_URL must be an smtp:// or smtps:// URL']);
    }
  });

  test('MESSAGE_PROVIDER_URL takes an http(s) URL, trailing slashes trimmed', () => {
    assert.equal(
      loadConfig({ MESSAGE_PROVIDER_URL: 'http://127.0.0.1:9000/' }).messageProviderUrl,
      'http://127.0.0.1:9000',
    );
    for (const bad of ['messages.example', 'ftp://messages.example', 'https://']) {
      assert.deepEqual(problemsOf({ MESSAGE_PROVIDER_URL: bad }), [
        'MESSAGE_PROVIDER_URL must be an http:// or https:// URL',
      ]);
    }
  });

  test('TRUST_PROXY takes proxy addresses and CIDR ranges, comma-separated, or a hop count; unset trusts none', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '' }).trustProxy, false);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.1,fd00::/8 , ::1' }).trustProxy, [
      '10.0.0.0/8',
      '192.0.2.1',
      'fd00::/8',
      '::1',
    ]);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    for (const bad of [
      'true',
      '*',
      '0',
      '1.5',
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0.300',
      'lb.internal',
      '10.0.0.1,,',
    ]) {
      assert.deepEqual(
        problemsOf({ TRUST_PROXY: bad }),
        [
          `TRUST_PROXY must be a hop count (1 or more) or a comma-separated list of proxy addresses or CIDR ranges, got '${bad}'`,
        ],
        bad,
      );
    }
  });

  test('the problem with a bad SMTP_URL does not repeat it, as it may hold a password', () => {
    const [problem] = problemsOf({ SMTP_URL: 'mail://user:hunter2@mail.example' });
    assert.doesNotMatch(problem ?? '', /hunter2/);
  });

  test('empty values count as unset', () => {
    const config = loadConfig({
      PORT: '',
      DATABASE_URL: '',
      RATE_LIMIT_PER_MINUTE: '',
      LOG_LEVEL: '',
      MAIL_FROM: '',
      MESSAGE_PROVIDER_URL: '',
      MESSAGE_PROVIDER_NAME: '',
    });
    assert.equal(config.port, 3000);
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.rateLimitPerMinute, undefined);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.mailFrom, 'paytrack <no-reply@localhost>');
    assert.equal(config.messageProviderUrl, undefined);
    assert.equal(config.messageProviderName, 'messages');
  });
});
