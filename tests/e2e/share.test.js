// Finding, exporting and sharing a conversation: the list page's search,
// the Export menu's Markdown download, and a public share link opened in a
// fresh browser with no session, at 1440×900 and 390×844.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';
import { waitConnected, horizontalOverflow, tabOrder, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};
let built; // a conversation with a built strategy
let rootCount; // its result step's count

before(async () => {
  const api = new Api(env().alice);
  const conv = await buildAcceptance(api, 'Quokka replication genes');
  // The planner names the conversation after the request; give it back a
  // title no other conversation has.
  await api.call('PATCH', `/conversations/${conv.id}`, { title: 'Quokka replication genes' });
  built = await api.conversation(conv.id);
  const root = built.strategy?.steps.find((s) => s.id === built.strategy.rootStepId);
  assert.ok(root && Number.isInteger(root.count), 'the strategy was built with a root count');
  rootCount = root.count;
});

function reached(order, testid) {
  return order.some((f) => f.testid === testid);
}

async function resultIds(page) {
  return page.$$eval('[data-testid="conversation-results"] [data-testid="conversation-item"]', (els) => els.map((el) => el.dataset.conversationId));
}

for (const [name, viewport] of Object.entries(sizes)) {
  test(`search finds a conversation by its title, and says when nothing matches (${name})`, async () => {
    const { page, problems } = await b.openAs(env().alice, viewport);
    const box = byTestId(page, 'conversation-search');
    const label = await box.evaluate((el) => el.labels?.[0]?.innerText || '');
    assert.match(label, /search/i, 'the search box has a label');
    const order = await tabOrder(page);
    assert.ok(reached(order, 'conversation-search'), `the search box is reachable by Tab: ${order.map((f) => f.testid || f.tag).join(' ')}`);
    assert.deepEqual(order.filter((f) => !f.indicator).map((f) => f.testid || f.tag), [], 'every focused control shows a focus indicator');

    // Typing filters the list (htmx, no page load) and the address keeps it.
    await box.focus();
    await page.keyboard.type('quokka');
    await page.waitForFunction(() => document.querySelector('[data-testid="conversation-results"]')?.dataset.query === 'quokka');
    assert.deepEqual(await resultIds(page), [built.id]);
    assert.match(await byTestId(page, 'search-snippet').first().innerText(), /Quokka/);
    assert.equal(new URL(page.url()).searchParams.get('q'), 'quokka');
    assert.deepEqual(await horizontalOverflow(page), []);
    await screenshot(page, name === 'phone' ? 'phone-search' : 'conversation-search');

    // A word of a message finds it too; an absent word finds nothing, and says so.
    await box.fill('chromosome');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid="conversation-results"]')?.dataset.query === 'chromosome');
    assert.ok((await resultIds(page)).includes(built.id), 'a word of the request finds the conversation');
    await box.fill('xylophone');
    await page.keyboard.press('Enter');
    await byTestId(page, 'empty-search').waitFor();
    assert.deepEqual(await resultIds(page), []);
    assert.deepEqual(problems.pageErrors, []);
  });

  test(`the Export menu downloads Markdown with the result count (${name})`, async () => {
    const { page, problems } = await b.openAs(env().alice, viewport);
    await page.goto(`/conversations/${built.id}`);
    await waitConnected(page);
    if (name === 'desktop') {
      // The combine boxes show VEuPathDB's overlap of their inputs: the
      // root keeps the 89 of the union's 108 genes not among chromosome
      // 14's 802; the union's inputs (57 and 60 genes) share 9.
      const overlaps = await page.$$eval('[data-testid="graph-step"] [data-testid="graph-step-overlap"]', (els) =>
        els.map((el) => [el.closest('[data-testid="graph-step"]').dataset.count, el.textContent.trim()]));
      assert.deepEqual(overlaps.sort(), [
        ['108', 'both 9 · left only 48 · right only 51'],
        ['89', 'both 19 · left only 89 · right only 783'],
      ]);
      const box = await byTestId(page, 'graph-step-overlap').first().boundingBox();
      assert.ok(box && box.y < 900 && box.width > 0, `the overlap is drawn in view at 1440×900: ${JSON.stringify(box)}`);
    }
    const order = await tabOrder(page, 200);
    for (const id of ['export-toggle', 'share-toggle']) {
      assert.ok(reached(order, id), `${id} is reachable by Tab: ${order.map((f) => f.testid || f.tag).join(' ')}`);
    }
    assert.deepEqual(order.filter((f) => !f.indicator).map((f) => f.testid || f.tag), [], 'every focused control shows a focus indicator');

    // Keyboard: open the menu with Enter, then the Markdown link.
    await byTestId(page, 'export-toggle').focus();
    await page.keyboard.press('Enter');
    await byTestId(page, 'export-markdown').waitFor();
    assert.deepEqual(await horizontalOverflow(page), [], 'the open menu fits');
    await byTestId(page, 'export-markdown').focus();
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    assert.match(download.suggestedFilename(), /^strategist-.*\.md$/);
    const md = await readFile(await download.path(), 'utf8');
    assert.match(md, /^# Quokka replication genes/m);
    assert.ok(md.includes(`(count ${rootCount})`), `the Markdown has the root count ${rootCount}`);
    assert.ok(md.includes('DNA replication'), 'the Markdown has the request');
    // Picking an item closed the menu; opened again, Esc closes it (focus
    // back on its toggle), and so does a click on Share.
    const menu = byTestId(page, 'export-menu');
    assert.equal(await menu.evaluate((d) => d.open), false, 'the menu closed when an item was picked');
    await byTestId(page, 'export-toggle').click();
    await byTestId(page, 'export-markdown').focus();
    await page.keyboard.press('Escape');
    assert.equal(await menu.evaluate((d) => d.open), false, 'Esc closes the menu');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'export-toggle');
    await byTestId(page, 'export-toggle').click();
    await byTestId(page, 'share-toggle').click();
    assert.equal(await menu.evaluate((d) => d.open), false, 'opening Share closes the Export menu');
    assert.deepEqual(problems.pageErrors, []);
  });

  test(`a public share link opens read-only in a browser with no session (${name})`, async () => {
    const { page, problems } = await b.openAs(env().alice, viewport);
    await page.goto(`/conversations/${built.id}`);
    await waitConnected(page);
    const toggle = byTestId(page, 'share-toggle');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    // The panel loads when opened: the box, Create link, the links made so far.
    await byTestId(page, 'share-public').check();
    await byTestId(page, 'share-create').click();
    const field = byTestId(page, 'share-url');
    await field.waitFor();
    const link = await field.inputValue();
    assert.equal(await byTestId(page, 'share-public').isChecked(), true, 'the box stays ticked as the public link just made');
    assert.match(link, /\/shared\/shr_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(await horizontalOverflow(page), []);
    if (name === 'desktop') await screenshot(page, 'share-link');
    assert.deepEqual(problems.pageErrors, []);

    // A fresh context: no cookies at all.
    const visitor = await b.open(viewport);
    const res = await visitor.page.goto(new URL(link).pathname);
    assert.equal(res.status(), 200);
    assert.equal(res.headers()['referrer-policy'], 'no-referrer');
    await byTestId(visitor.page, 'shared-conversation').waitFor();
    assert.equal(await byTestId(visitor.page, 'composer').count(), 0, 'no composer');
    assert.equal(await visitor.page.locator('form, textarea, button, [hx-post], [sse-connect]').count(), 0, 'no forms, buttons or streams');
    assert.equal(await byTestId(visitor.page, 'user-email').count(), 0, 'nobody is signed in');
    const steps = await visitor.page.$$eval('[data-testid="graph-step"]', (els) => els.map((el) => ({ root: el.dataset.root, count: el.dataset.count })));
    assert.ok(steps.some((s) => s.root === 'true' && Number(s.count) === rootCount), `the shared graph shows the root count: ${JSON.stringify(steps)}`);
    assert.match(await byTestId(visitor.page, 'strategy-root-count').innerText(), new RegExp(String(rootCount)));
    assert.equal(await visitor.page.locator('a[href^="/conversations/"]').count(), 0, 'no link into the owner\'s conversations');
    // No tool names; each step's genes download through the link.
    const text = await visitor.page.locator('body').innerText();
    for (const tool of ['search_for_searches', 'request_executor_build', 'delegate_strategy_subtasks']) {
      assert.ok(!text.includes(tool), `the shared page names no tool (${tool})`);
    }
    assert.equal(await byTestId(visitor.page, 'shared-download-tsv').count(), 5, 'a TSV download for each of the five steps');
    const rootRow = visitor.page.locator(`[data-testid="shared-steps"] tr[data-step-id="${built.strategy.rootStepId}"]`);
    const [tsv] = await Promise.all([visitor.page.waitForEvent('download'), byTestId(rootRow, 'shared-download-tsv').click()]);
    const rows = (await readFile(await tsv.path(), 'utf8')).trim().split('\n');
    assert.match(rows[0], new RegExp(`^# ${rootCount} genes of step`));
    assert.equal(rows.length - 2, rootCount, 'the root\'s genes, every one');
    assert.deepEqual(await horizontalOverflow(visitor.page), []);
    await screenshot(visitor.page, name === 'phone' ? 'phone-shared' : 'shared-conversation');
    if (name === 'phone') {
      await byTestId(visitor.page, 'strategy-graph').scrollIntoViewIfNeeded();
      await screenshot(visitor.page, 'phone-shared-strategy');
    }
    const order = await tabOrder(visitor.page, 60);
    assert.deepEqual(order.filter((f) => !f.indicator).map((f) => f.testid || f.tag), [], 'every focused control shows a focus indicator');
    assert.deepEqual(visitor.problems.pageErrors, []);
    assert.deepEqual(visitor.problems.console, []);

    // The owner revokes the link from the panel: it no longer opens.
    const shareId = await page.locator('[data-testid="share-item"]').last().getAttribute('data-share-id');
    const item = page.locator(`[data-testid="share-item"][data-share-id="${shareId}"]`);
    assert.equal(await item.getAttribute('data-revoked'), 'false', 'the newest link is listed, live');
    await byTestId(item, 'share-revoke').focus();
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="share-item"][data-share-id="${shareId}"][data-revoked="true"]`).waitFor();
    const gone = await visitor.page.reload();
    assert.equal(gone.status(), 410);
    assert.equal(await byTestId(visitor.page, 'shared-conversation').count(), 0);
  });
}
