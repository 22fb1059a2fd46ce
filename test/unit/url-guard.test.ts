import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkWebhookUrl,
  guardedLookup,
  isBlockedAddress,
  isLocalhostName,
  parseWebhookUrl,
  type Resolver,
} from '../../src/ports/url-guard.js';

const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('isBlockedAddress', () => {
  test('refuses loopback, private, shared, link-local, multicast and reserved IPv4', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '100.127.255.255',
      '169.254.169.254',
      '169.254.0.1',
      '0.0.0.0',
      '0.1.2.3',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.10',
    ]) {
      assert.equal(isBlockedAddress(address), true, address);
    }
  });

  test('accepts public IPv4, including the neighbours of blocked ranges', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.215.14',
      '172.15.255.255',
      '172.32.0.1',
      '100.63.255.255',
      '100.128.0.1',
      '11.0.0.1',
      '169.253.255.255',
      '223.255.255.255',
    ]) {
      assert.equal(isBlockedAddress(address), false, address);
    }
  });

  test('refuses loopback, unspecified, unique-local, link-local and multicast IPv6', () => {
    for (const address of [
      '::1',
      '::',
      'fc00::1',
      'fd12:3456:789a::1',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
      'ff02::1',
      '0:0:0:0:0:0:0:1',
    ]) {
      assert.equal(isBlockedAddress(address), true, address);
    }
  });

  test('looks inside IPv4-mapped, NAT64 and 6to4 IPv6 addresses', () => {
    assert.equal(isBlockedAddress('::ffff:127.0.0.1'), true);
    assert.equal(isBlockedAddress('::ffff:7f00:1'), true);
    assert.equal(isBlockedAddress('::ffff:169.254.169.254'), true);
    assert.equal(isBlockedAddress('::ffff:a00:1'), true);
    assert.equal(isBlockedAddress('64:ff9b::10.0.0.1'), true);
    assert.equal(isBlockedAddress('2002:c0a8:101::1'), true);
    assert.equal(isBlockedAddress('::ffff:8.8.8.8'), false);
    assert.equal(isBlockedAddress('64:ff9b::8.8.8.8'), false);
  });

  test('refuses every address that is not global unicast, including the ones a hand-kept list missed', () => {
    for (const address of [
      '::ffff:0:127.0.0.1', // IPv4-translated (RFC 6145)
      '2001::1', // Teredo
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '100::1', // discard-only
      '192.88.99.1', // 6to4 relay anycast
      '2001:db8::1', // documentation
      '64:ff9b:1::1', // local-use NAT64
      '198.18.0.1', // benchmarking
      'fec0::1',
    ]) {
      assert.equal(isBlockedAddress(address), true, address);
    }
  });

  test('accepts public IPv6', () => {
    assert.equal(isBlockedAddress('2606:4700:4700::1111'), false);
    assert.equal(isBlockedAddress('2001:4860:4860::8888'), false);
  });

  test('refuses anything that is not an IP address', () => {
    assert.equal(isBlockedAddress('example.com'), true);
    assert.equal(isBlockedAddress('1.2.3'), true);
  });
});

describe('isLocalhostName', () => {
  test('matches localhost and its subdomains, with or without the final dot', () => {
    assert.equal(isLocalhostName('localhost'), true);
    assert.equal(isLocalhostName('LOCALHOST.'), true);
    assert.equal(isLocalhostName('api.localhost'), true);
    assert.equal(isLocalhostName('localhost.example.com'), false);
    assert.equal(isLocalhostName('notlocalhost'), false);
  });
});

describe('parseWebhookUrl', () => {
  test('accepts http and https', () => {
    assert.equal(parseWebhookUrl('https://example.com/hooks').ok, true);
    assert.equal(parseWebhookUrl('http://example.com:8080/hooks?x=1').ok, true);
  });

  test('refuses other schemes, relative URLs and credentials', () => {
    for (const url of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      '/relative',
      'https://user:pw@example.com/',
    ]) {
      const check = parseWebhookUrl(url);
      assert.equal(check.ok, false, url);
      if (!check.ok) assert.equal(check.reason, 'invalid_url');
    }
  });
});

describe('checkWebhookUrl', () => {
  const guard = { allowPrivate: false };

  test('refuses private IP literals, including the forms URL parsing normalises', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:8080/',
      'http://[::ffff:127.0.0.1]/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://10.1.2.3/',
    ]) {
      const check = await checkWebhookUrl(url, { ...guard, resolve: resolvesTo('8.8.8.8') });
      assert.equal(check.ok, false, url);
      if (!check.ok) assert.equal(check.reason, 'blocked_address', url);
    }
  });

  test('refuses localhost names without asking DNS', async () => {
    const check = await checkWebhookUrl('http://localhost:3000/', {
      ...guard,
      resolve: async () => assert.fail('must not resolve'),
    });
    assert.equal(check.ok, false);
  });

  test('refuses a host when any of its addresses is blocked', async () => {
    const check = await checkWebhookUrl('https://hooks.example.com/', {
      ...guard,
      resolve: resolvesTo('8.8.8.8', '10.0.0.5'),
    });
    assert.equal(check.ok, false);
    if (!check.ok) assert.equal(check.reason, 'blocked_address');
  });

  test('refuses a host that does not resolve', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    for (const resolve of [failing, resolvesTo()]) {
      const check = await checkWebhookUrl('https://nowhere.example.com/', { ...guard, resolve });
      assert.equal(check.ok, false);
      if (!check.ok) assert.equal(check.reason, 'unresolvable_host');
    }
  });

  test('accepts a host whose addresses are all public', async () => {
    const check = await checkWebhookUrl('https://hooks.example.com/in', {
      ...guard,
      resolve: resolvesTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'),
    });
    assert.equal(check.ok, true);
  });

  test('allows private targets when configured, still checking the form', async () => {
    assert.equal((await checkWebhookUrl('http://127.0.0.1:9000/', { allowPrivate: true })).ok, true);
    assert.equal((await checkWebhookUrl('ftp://127.0.0.1/', { allowPrivate: true })).ok, false);
  });
});

describe('guardedLookup', () => {
  const lookup = (hostname: string, all: boolean) =>
    new Promise<{ error: Error | null; result: unknown }>((resolve) =>
      guardedLookup(hostname, { all }, (error, address) => resolve({ error, result: address })),
    );

  test('refuses at connect time a name or address that resolves to a blocked address', async () => {
    for (const hostname of ['localhost', '127.0.0.1', '169.254.169.254', '::1']) {
      for (const all of [true, false]) {
        const { error } = await lookup(hostname, all);
        assert.equal((error as { code?: string } | null)?.code, 'EBLOCKEDADDRESS', `${hostname} all=${all}`);
      }
    }
  });

  test('passes public addresses through in the shape the caller asked for', async () => {
    assert.deepEqual(await lookup('8.8.8.8', true), {
      error: null,
      result: [{ address: '8.8.8.8', family: 4 }],
    });
    assert.deepEqual(await lookup('8.8.8.8', false), { error: null, result: '8.8.8.8' });
  });
});
