// The conversation list: newest first, new conversation with the site picker,
// rename in place, delete after a confirmation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api } from './lib/harness.js';
import { newConversation } from './lib/conversation.js';

const b = useBrowser();

async function listed(page) {
  return page.$$eval('[data-testid="conversation-list"] [data-testid="conversation-item"]', (els) =>
    els.map((el) => ({ id: el.dataset.conversationId, text: el.innerText })),
  );
}

test('new, rename and delete from the list; newest first', async () => {
  const { bob } = env();
  const api = new Api(bob);
  const { page, problems } = await b.openAs(bob);

  // The site picker is labelled and offers the offline PlasmoDB.
  const select = byTestId(page, 'site-select');
  const label = await select.evaluate((el) => el.labels?.[0]?.innerText || el.getAttribute('aria-label') || '');
  assert.ok(label.trim().length > 0, 'the site picker has a label');
  assert.ok((await select.locator('option').allInnerTexts()).some((t) => /plasmo/i.test(t)));

  const first = await newConversation(page);
  await page.goto('/');
  const second = await newConversation(page);
  await page.goto('/');
  let items = await listed(page);
  assert.equal(items[0].id, second, 'the newest conversation is first');
  assert.ok(items.some((i) => i.id === first));
  assert.ok(items.every((i) => i.id), 'every item carries data-conversation-id');
  const link = page.locator(`[data-testid="conversation-item"][data-conversation-id="${first}"] a[href="/conversations/${first}"]`);
  assert.equal(await link.count(), 1, 'each item links to its page');

  // Rename the older one: it shows the new title (and, as it changed, may move up).
  const item = page.locator(`[data-testid="conversation-item"][data-conversation-id="${first}"]`);
  await byTestId(item, 'rename-conversation').click();
  const input = byTestId(item, 'rename-input');
  await input.fill('Kinases on chromosome 7');
  await byTestId(item, 'rename-save').click();
  await page.waitForFunction(
    (id) => document.querySelector(`[data-testid="conversation-item"][data-conversation-id="${id}"]`)?.innerText.includes('Kinases on chromosome 7'),
    first,
  );
  assert.equal((await api.conversation(first)).title, 'Kinases on chromosome 7');

  // Delete the newer one: nothing happens before the confirmation.
  const doomed = page.locator(`[data-testid="conversation-item"][data-conversation-id="${second}"]`);
  await byTestId(doomed, 'delete-conversation').click();
  assert.equal((await api.call('GET', `/conversations/${second}`, undefined, { okStatuses: [200, 404] })).status, 200, 'not deleted before the confirmation');
  await byTestId(doomed, 'delete-confirm').click();
  await page.waitForFunction(
    (id) => !document.querySelector(`[data-testid="conversation-item"][data-conversation-id="${id}"]`),
    second,
  );
  assert.equal((await api.call('GET', `/conversations/${second}`, undefined, { okStatuses: [404] })).status, 404);
  await page.reload();
  items = await listed(page);
  assert.ok(!items.some((i) => i.id === second));
  assert.ok(items.some((i) => i.id === first && i.text.includes('Kinases on chromosome 7')));
  assert.deepEqual(problems.pageErrors, []);
});

test('a form post without the session token is refused', async () => {
  const { bob } = env();
  const api = new Api(bob);
  const conv = await api.createConversation('Keep me');
  const { page } = await b.openAs(bob);
  const status = await page.evaluate(async (id) => {
    const r = await fetch(`/conversations/${id}/delete`, { method: 'POST', body: new URLSearchParams({}), redirect: 'manual' });
    return r.status;
  }, conv.id);
  assert.equal(status, 403);
  assert.equal((await api.conversation(conv.id)).title, 'Keep me');
});
