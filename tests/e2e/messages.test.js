// Steering by the messages themselves: the researcher edits the latest
// message in place and sends it again, asks for the latest answer again
// (Regenerate), and each replaced turn stays in the conversation, folded and
// labelled "replaced", live and after a reload; Copy puts a message's text
// on the clipboard and the results panel copies all of a step's gene ids.
// By keyboard, at 1440×900 and 390×844.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api } from './lib/harness.js';
import { send, waitIdle, waitConnected, chatState, horizontalOverflow, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

const asked = 'Which searches find genes by GO term?';
const edited = 'Which searches find genes by text?';

let built; // the acceptance strategy, planned and built through the API: { id, root }

before(async () => {
  const api = new Api(env().alice);
  const { id, root } = await buildAcceptance(api, 'Built, then steered');
  built = { id, root };
});

/** turnsOnPage reads the chat's turns: id, folded, replaced, the visible Edit and Regenerate controls. */
async function turnsOnPage(page) {
  return page.$$eval('[data-testid="chat"] > [data-turn-id]', (els) =>
    els.map((el) => ({
      id: el.dataset.turnId,
      folded: el.dataset.testid === 'folded-turn',
      replaced: el.querySelector('[data-testid="turn-replaced"]')?.innerText.trim() === 'replaced',
      edit: [...el.querySelectorAll('[data-testid="edit-button"]')].filter((x) => x.checkVisibility()).length,
      regenerate: [...el.querySelectorAll('[data-testid="regenerate-button"]')].filter((x) => x.checkVisibility()).length,
    })),
  );
}

/** waitTurns waits until the chat has n turns and none runs. */
async function waitTurns(page, api, id, n) {
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="chat"] > [data-turn-id]').length === n, n);
  return waitIdle(page, api, id);
}

/** readClipboard reads the page's clipboard (permission granted to the context). */
function readClipboard(page) {
  return page.evaluate(() => navigator.clipboard.readText());
}

for (const [name, viewport] of Object.entries(sizes)) {
  test(`edit the latest message, regenerate the answer, copy a message and the gene ids (${name})`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    const { context, page, problems } = await b.openAs(alice, viewport);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);

    // A conversation of its own for this viewport: the built one's turns
    // stay as they are for the other.
    const { id } = await api.createConversation(`Steered by its messages (${name})`);
    await page.goto(`/conversations/${id}`);
    await waitConnected(page);
    await send(page, asked);
    await waitTurns(page, api, id, 1);
    let turns = await turnsOnPage(page);
    assert.deepEqual(turns.map((t) => [t.edit, t.regenerate]), [[1, 1]], 'the ended latest turn offers Edit and Regenerate');

    // Edit in place, by keyboard: the box holds the message, the cursor at its end.
    const edit = byTestId(page, 'edit-button');
    await edit.focus();
    await page.keyboard.press('Enter');
    const box = byTestId(page, 'edit-input');
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'edit-input');
    assert.equal(await box.inputValue(), asked);
    await box.fill(edited);
    await byTestId(page, 'edit-send').focus();
    await page.keyboard.press('Enter');
    await waitTurns(page, api, id, 2);
    turns = await turnsOnPage(page);
    assert.deepEqual(
      turns.map((t) => [t.folded, t.replaced, t.edit, t.regenerate]),
      [[true, true, 0, 0], [false, false, 1, 1]],
      'the edited turn folds, labelled replaced; the new one offers Edit and Regenerate',
    );
    const first = turns[0].id;
    const state = await chatState(page);
    assert.deepEqual(state.filter((m) => m.role === 'user').map((m) => m.text), [edited], 'the new turn asks the edited message');

    // Regenerate, by keyboard: the same message in a new turn.
    await byTestId(page, 'regenerate-button').focus();
    await page.keyboard.press('Enter');
    await waitTurns(page, api, id, 3);
    turns = await turnsOnPage(page);
    assert.deepEqual(turns.map((t) => [t.folded, t.replaced]), [[true, true], [true, true], [false, false]]);
    const conv = await api.conversation(id);
    assert.equal(conv.turns.length, 3, 'every turn is kept');
    const users = conv.messages.filter((m) => m.role === 'user').map((m) => m.content);
    assert.deepEqual(users, [asked, edited, edited], 'every message is kept; Regenerate asked the edited one again');

    // A replaced turn opens from its line, whole.
    const line = page.locator(`[data-turn-id="${first}"] [data-testid="turn-summary"]`);
    await line.click();
    await page.locator(`[data-turn-id="${first}"] .turn-body [data-role="assistant"]`).first().waitFor();
    assert.equal(await page.locator(`[data-turn-id="${first}"] .turn-body [data-role="user"] [data-testid="message-text"]`).innerText(), asked);
    assert.equal(await page.locator(`[data-turn-id="${first}"] .turn-body [data-testid="edit-button"]`).count(), 0, 'a replaced turn is not edited again');

    // Copy the latest answer, by keyboard: the clipboard has its text and the button says so.
    const latest = page.locator('[data-testid="chat"] > [data-turn-id]').last();
    const answer = latest.locator('[data-role="assistant"]').last();
    const copy = byTestId(answer, 'copy-message');
    assert.equal(await copy.getAttribute('aria-label'), "Copy the assistant's message");
    await copy.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((el) => el.textContent === 'Copied', await copy.elementHandle());
    assert.equal(await readClipboard(page), (await byTestId(answer, 'message-text').innerText()).trim());
    assert.match(await byTestId(page, 'announcer').textContent(), /Message copied/);
    // The user's message too.
    await byTestId(latest.locator('[data-role="user"]'), 'copy-message').click();
    await page.waitForFunction(async () => (await navigator.clipboard.readText()) === 'Which searches find genes by text?');

    // After a reload the replaced turns are still shown as replaced.
    await page.reload();
    await waitConnected(page);
    turns = await turnsOnPage(page);
    assert.deepEqual(turns.map((t) => [t.folded, t.replaced, t.edit, t.regenerate]), [[true, true, 0, 0], [true, true, 0, 0], [false, false, 1, 1]]);
    assert.deepEqual(await horizontalOverflow(page), []);

    // Copy gene ids: every id of the built strategy's result, one a line.
    await page.goto(`/conversations/${built.id}`);
    await waitConnected(page);
    await page.locator(`[data-testid="graph-step"][data-step-id="${built.root.id}"]`).click();
    const copyIds = byTestId(page, 'copy-gene-ids');
    await copyIds.waitFor();
    assert.match(await copyIds.getAttribute('aria-label'), /^Copy gene ids: all 89 genes/);
    await copyIds.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((el) => el.textContent === 'Copied', await copyIds.elementHandle());
    const ids = (await readClipboard(page)).split('\n');
    assert.equal(ids.length, 89, 'all the ids, not the page shown');
    assert.equal(new Set(ids).size, 89);
    for (const g of ids) assert.match(g, /^PF3D7_\d+$/);
    assert.deepEqual(await horizontalOverflow(page), []);
    assert.deepEqual(problems, { console: [], pageErrors: [], dialogs: [] });
  });
}

test('without the asynchronous clipboard, Copy falls back to a selected text box', async () => {
  const { alice } = env();
  const { page, problems } = await b.openAs(alice, sizes.phone);
  await page.addInitScript(() => {
    Object.defineProperty(navigator, 'clipboard', { value: undefined });
  });
  await page.goto(`/conversations/${built.id}`);
  await waitConnected(page);
  // execCommand('copy') copies the selected box in Chromium: the button says so.
  const copy = byTestId(page.locator('[data-role="assistant"]').last(), 'copy-message');
  await copy.click();
  await page.waitForFunction((el) => el.textContent === 'Copied', await copy.elementHandle());
  assert.equal(await page.locator('.copy-fallback').count(), 0, 'the box goes once copied');
  assert.deepEqual(problems, { console: [], pageErrors: [], dialogs: [] });
});
