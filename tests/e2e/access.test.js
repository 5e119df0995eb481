// Conversations belong to their owner: another user's conversation, by page
// or by API, is "not found" (404), never "forbidden", so its existence does
// not leak.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';

const b = useBrowser();

test("a second user opening the first user's conversation gets the 404 page", async () => {
  const { alice, bob } = env();
  const conv = await new Api(alice).createConversation('Alice only');
  const { page } = await b.openAs(bob);
  const res = await page.goto(`/conversations/${conv.id}`);
  assert.equal(res.status(), 404);
  await byTestId(page, 'error-page').waitFor();
  const text = await page.locator('body').innerText();
  assert.ok(!text.includes('Alice only'), 'the 404 page does not show the title');
  await screenshot(page, 'not-found');

  // The owner sees it.
  const owner = await b.openAs(alice);
  const own = await owner.page.goto(`/conversations/${conv.id}`);
  assert.equal(own.status(), 200);
  assert.equal(await byTestId(owner.page, 'error-page').count(), 0);
});

test('an unknown conversation id gets the same 404 page, a malformed one a 400 page', async () => {
  const { bob } = env();
  const { page } = await b.openAs(bob);
  for (const [id, status] of [['00000000-0000-0000-0000-000000000000', 404], ['not-a-uuid', 400], ['%ff', 400]]) {
    const res = await page.goto(`/conversations/${id}`);
    assert.equal(res.status(), status, id);
    await byTestId(page, 'error-page').waitFor();
    // The page keeps its header: who is signed in, and the way out.
    assert.equal((await byTestId(page, 'user-email').innerText()).trim(), bob.email, `the ${status} page for ${id} says who is signed in`);
  }
});

test("the JSON API answers 404 for another user's conversation and leaves it alone", async () => {
  const { alice, bob } = env();
  const conv = await new Api(alice).createConversation('Alice API only');
  const api = new Api(bob);
  for (const [method, route, body] of [
    ['GET', `/conversations/${conv.id}`],
    ['PATCH', `/conversations/${conv.id}`, { title: 'taken' }],
    ['POST', `/conversations/${conv.id}/turns`, { message: 'hello', mode: 'plan' }],
    ['GET', `/conversations/${conv.id}/strategy`],
    ['DELETE', `/conversations/${conv.id}`],
  ]) {
    const { status, body: got } = await api.call(method, route, body, { okStatuses: [404] });
    assert.equal(status, 404, `${method} ${route}`);
    assert.equal(got.error.code, 'NOT_FOUND', `${method} ${route}`);
  }
  const list = (await api.call('GET', '/conversations')).body.conversations;
  assert.ok(!list.some((c) => c.id === conv.id), "bob's list does not show alice's conversation");
  const still = await new Api(alice).conversation(conv.id);
  assert.equal(still.title, 'Alice API only');
});

test("the page's event stream of another user's conversation is 404", async () => {
  const { alice, bob } = env();
  const conv = await new Api(alice).createConversation();
  const { page } = await b.openAs(bob);
  for (const path of [`/conversations/${conv.id}/stream?after=0`, `/api/v1/conversations/${conv.id}/events?after=0`]) {
    const status = await page.evaluate(async (p) => (await fetch(p)).status, path);
    assert.equal(status, 404, path);
  }
});
