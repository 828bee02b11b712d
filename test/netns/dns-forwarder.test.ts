// The DNS forwarder of linkshell --netns, on loopback with a resolver the
// test controls: answers, failures and malformed queries, each at once.

import { createSocket } from 'node:dgram';
import { Resolver as DnsResolver } from 'node:dns/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildResponse, DnsForwarder, hostResolver, parseQuery, Rcode, type Resolution, type Resolver } from '../../src/netns/dns-forwarder.ts';

const table: Record<string, { 4?: string[]; 6?: string[] }> = {
  'host.test': { 4: ['10.1.2.3', '10.1.2.4'], 6: ['2001:db8::7'] },
  'v4only.test': { 4: ['10.9.9.9'] },
};
let calls = 0;
const fake: Resolver = async (name, family): Promise<Resolution> => {
  calls++;
  if (name === 'slow.test') return { rcode: Rcode.ServFail };
  const entry = table[name.toLowerCase()];
  if (!entry) return { rcode: Rcode.NxDomain };
  const addresses = entry[family];
  return addresses ? { rcode: Rcode.NoError, addresses } : { rcode: Rcode.NxDomain };
};

async function withForwarder(f: (resolver: DnsResolver, port: number) => Promise<void>): Promise<void> {
  const forwarder = await DnsForwarder.listen('127.0.0.1', 0, fake);
  const resolver = new DnsResolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${forwarder.port}`]);
  try {
    await f(resolver, forwarder.port);
  } finally {
    await forwarder.close();
  }
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}

test('A and AAAA answers come from the resolver, in its order; each question is resolved once per run', async () => {
  await withForwarder(async (resolver) => {
    calls = 0;
    assert.equal(await resolver.resolve4('host.test'), ['10.1.2.3', '10.1.2.4']);
    assert.equal(await resolver.resolve6('host.test'), ['2001:db8::7']);
    assert.equal(await resolver.resolve4('HOST.test'), ['10.1.2.3', '10.1.2.4']);
    assert.is(calls, 2);
  });
});

test('no such name is NXDOMAIN; a name without addresses of the type asked is an empty answer; a failed lookup SERVFAIL', async () => {
  await withForwarder(async (resolver) => {
    assert.is(await code(resolver.resolve4('missing.test')), 'ENOTFOUND');
    assert.is(await code(resolver.resolve6('v4only.test')), 'ENODATA');
    assert.is(await code(resolver.resolve4('slow.test')), 'ESERVFAIL');
  });
});

test('other types are NOTIMP at once, not a timeout', async () => {
  await withForwarder(async (resolver) => {
    const started = Date.now();
    assert.is(await code(resolver.resolveMx('host.test')), 'ENOTIMP');
    assert.ok(Date.now() - started < 1500);
  });
});

test('malformed queries get FORMERR, responses and runts are ignored', async () => {
  const bad = Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0x40]);
  const parsed = parseQuery(bad);
  assert.equal(parsed && 'rcode' in parsed ? parsed.rcode : undefined, Rcode.FormErr);
  assert.is(parseQuery(Buffer.alloc(11)), undefined);
  assert.is(parseQuery(buildResponse(1, 0, Rcode.NoError)), undefined);
  await withForwarder(async (_resolver, port) => {
    const socket = createSocket('udp4');
    const reply = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    socket.send(bad, port, '127.0.0.1');
    const answer = await reply;
    socket.close();
    assert.is(answer.readUInt16BE(0), 0x1234);
    assert.is(answer.readUInt16BE(2) & 15, Rcode.FormErr);
    assert.ok(answer.readUInt16BE(2) & 0x8000);
  });
});

test('the host resolver answers localhost from /etc/hosts', async () => {
  const result = await hostResolver('localhost', 4);
  assert.equal(result, { rcode: Rcode.NoError, addresses: ['127.0.0.1'] });
});

test.run();
