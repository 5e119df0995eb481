// Every page at 1280×800 and 390×844: nothing sticks out sideways, and the
// controls are reachable with Tab, with a visible focus indicator.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot, viewports } from './lib/harness.js';
import { waitConnected, horizontalOverflow, tabOrder, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
let built; // a conversation with a planned and built strategy

before(async () => {
  const api = new Api(env().alice);
  const conv = await buildAcceptance(api, 'Layout check');
  // A third turn folds the first into its summary line.
  await api.startTurn(conv.id, 'thanks', 'plan', 'offline');
  built = await api.waitIdle(conv.id);
  assert.ok(built.strategy?.rootStepId, 'the strategy was built');
});

function reached(order, testid) {
  return order.some((f) => f.testid === testid);
}

for (const [name, viewport] of Object.entries(viewports)) {
  test(`the sign-in page fits and tabs in order (${name})`, async () => {
    const { page } = await b.open(viewport);
    await page.goto('/signin');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'email', 'the cursor starts in the email field');
    assert.deepEqual(await horizontalOverflow(page), []);
    const order = await tabOrder(page, 12);
    const texts = order.map((f) => f.tag + ':' + f.text);
    for (const field of ['email', 'password']) {
      assert.ok(order.some((f) => f.tag === 'input' && f.name === field), `the ${field} field is reachable: ${texts}`);
    }
    assert.ok(order.some((f) => f.tag === 'button' && /sign in/i.test(f.text)), `the button is reachable: ${texts}`);
    assert.deepEqual(order.filter((f) => !f.indicator).map((f) => f.tag + ':' + f.text), [], 'every focused control shows a focus indicator');
  });

  test(`the conversation list fits and its controls are reachable by Tab (${name})`, async () => {
    const { page } = await b.openAs(env().alice, viewport);
    await byTestId(page, 'conversation-list').waitFor();
    assert.deepEqual(await horizontalOverflow(page), []);
    await screenshot(page, name === 'phone' ? 'phone-list' : 'conversation-list');
    const order = await tabOrder(page);
    for (const id of ['site-select', 'new-conversation', 'conversation-item', 'rename-conversation', 'delete-conversation']) {
      assert.ok(reached(order, id), `${id} is reachable by Tab: ${order.map((f) => f.testid || f.tag).join(' ')}`);
    }
    assert.deepEqual(order.filter((f) => !f.indicator).map((f) => f.testid || f.tag), [], 'every focused control shows a focus indicator');
  });

  test(`the conversation page fits and its controls are reachable by Tab (${name})`, async () => {
    const { page } = await b.openAs(env().alice, viewport);
    await page.goto(`/conversations/${built.id}`);
    await waitConnected(page);
    await byTestId(page, 'strategy-graph').waitFor();
    assert.deepEqual(await horizontalOverflow(page), []);
    if (name === 'phone') {
      await screenshot(page, 'phone-conversation');
      await byTestId(page, 'strategy-graph').scrollIntoViewIfNeeded();
      await screenshot(page, 'phone-strategy');
    }
    const order = await tabOrder(page, 200);
    // The mode radios are one group: Tab reaches the checked one (the arrows move within it).
    assert.ok(reached(order, 'mode-plan') || reached(order, 'mode-execute'), 'the mode switch is reachable by Tab');
    for (const id of ['turn-summary', 'message-input', 'model-select', 'send-button', 'graph-step', 'undo-button', 'export-wdk', 'tool-group', 'node-tool-call']) {
      assert.ok(reached(order, id), `${id} is reachable by Tab: ${order.map((f) => f.testid || f.tag).join(' ')}`);
    }
    assert.deepEqual(order.filter((f) => !f.indicator).map((f) => f.testid || f.tag), [], 'every focused control shows a focus indicator');

    // Desktop: chat on the left, panels on the right. Phone: one column, the
    // panels below the chat.
    const box = async (id) => byTestId(page, id).first().boundingBox();
    const [chat, graph] = [await box('chat'), await box('strategy-graph')];
    if (name === 'desktop') {
      assert.ok(graph.x >= chat.x + chat.width - 1, `the graph is right of the chat (chat ${JSON.stringify(chat)}, graph ${JSON.stringify(graph)})`);
    } else {
      assert.ok(graph.y >= chat.y + chat.height - 1, `the graph is below the chat (chat ${JSON.stringify(chat)}, graph ${JSON.stringify(graph)})`);
    }
  });
}

test('a folded turn opens and closes from the keyboard, and a tool card loads its body when opened', async () => {
  const { page, problems } = await b.openAs(env().alice);
  await page.goto(`/conversations/${built.id}`);
  await waitConnected(page);
  const folded = byTestId(page, 'folded-turn');
  assert.equal(await folded.count(), 1, 'the first of three turns is folded');
  const summary = byTestId(folded, 'turn-summary');
  assert.equal(await summary.getAttribute('aria-expanded'), 'false');
  assert.match(await summary.innerText(), /DNA replication[\s\S]*tool calls[\s\S]*Done in/);
  await summary.focus();
  await page.keyboard.press('Enter');
  const body = folded.locator('.turn-body');
  await body.locator('[data-testid="message"][data-role="assistant"]').first().waitFor();
  assert.equal(await summary.getAttribute('aria-expanded'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'turn-summary', 'focus stays on the summary line');
  assert.deepEqual(await horizontalOverflow(page), []);
  // The opened turn's tool calls are one summary line; opened, their cards
  // load their bodies on demand too.
  const group = byTestId(body, 'tool-group').first();
  await group.locator(':scope > summary').focus();
  await page.keyboard.press('Enter');
  const card = byTestId(body, 'tool-call').first();
  await card.waitFor({ state: 'visible' });
  assert.equal(await byTestId(card, 'tool-body').innerText(), '');
  await card.locator('summary').focus();
  await page.keyboard.press('Enter');
  await byTestId(card, 'tool-body').locator('pre').first().waitFor();
  assert.match(await byTestId(card, 'tool-body').innerText(), /Arguments/);
  await screenshot(page, 'folded-turn-open');
  await summary.focus();
  await page.keyboard.press('Space');
  assert.equal(await summary.getAttribute('aria-expanded'), 'false');
  assert.equal(await body.isHidden(), true);
  assert.deepEqual(problems.pageErrors, []);
});

// The home page at the widths people use: the greyed-out-sites hint takes a
// row of its own, so the Site select and the Start button keep theirs. On
// a desktop, at every width from a small laptop's to a wide screen's (one
// page, resized).
const homeWidths = { desktop: [1024, 1280, 1366, 1440, 1680, 1920, 2560], phone: [viewports.phone.width] };
for (const [name, viewport] of Object.entries({ desktop: { width: 1440, height: 900 }, phone: viewports.phone })) {
  test(`the home page's Site select and Start button are wide enough to read (${name})`, async () => {
    const { alice } = env();
    const { page } = await b.openAs(alice, viewport);
    await page.goto('/');
    const form = byTestId(page, 'new-conversation-form');
    // The case that squeezed them: the hint on greyed-out live sites (no
    // VEuPathDB key stored) beside them.
    assert.ok(await byTestId(form, 'site-hint').isVisible(), 'the greyed-out-sites hint is shown');
    for (const width of homeWidths[name]) {
      await page.setViewportSize({ width, height: viewport.height });
      for (const id of ['site-select', 'new-conversation']) {
        const box = await byTestId(form, id).boundingBox();
        assert.ok(box.width >= 100, `at ${width} px, ${id} is ${box.width} px wide`);
      }
      const button = await byTestId(form, 'new-conversation').boundingBox();
      assert.ok(button.height < 64, `at ${width} px, the Start button is ${button.height} px tall: its label wraps`);
    }
  });
}

// The keyboard: a skip link goes straight to the strategy, and "/" outside
// a text field puts the cursor in the composer.
test('a skip link leads to the strategy and "/" focuses the composer', async () => {
  const { alice } = env();
  const { page } = await b.openAs(alice, viewports.desktop);
  await page.goto(`/conversations/${built.id}`);
  await waitConnected(page);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'skip-to-strategy');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'strategy');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'message-input');
  assert.equal(await byTestId(page, 'message-input').inputValue(), '', 'the "/" is not typed into the box');
});
