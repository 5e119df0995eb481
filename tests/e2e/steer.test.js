// Steering a conversation: after planning, "Build this plan" is under the
// planner's answer without scrolling; a turn's tool calls are one summary
// line that opens on demand; the page follows the system's dark mode; the
// results link genes to their VEuPathDB pages and download as TSV and CSV.
// At 1440×900 and 390×844, live and after a reload.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';
import { acceptanceRequest, newConversation, send, waitIdle, waitConnected, graphState, horizontalOverflow } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

let planned; // a conversation planned through the API, its build pending

before(async () => {
  const api = new Api(env().alice);
  const conv = await api.createConversation('Planned, not built');
  await api.startTurn(conv.id, acceptanceRequest, 'plan', 'offline');
  planned = await api.waitIdle(conv.id);
  assert.ok(planned.handoffs.some((h) => h.status === 'pending'), 'the offline planner requested a build');
  assert.equal(planned.title, 'Planned, not built', 'the planner keeps the title the researcher chose');
});

/** inView reports whether the element is wholly inside the viewport and inside its scrolling chat. */
/** inPanels reports whether an element of the right column is on screen. */
async function inPanels(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const p = el.closest('.panels').getBoundingClientRect();
    const vh = document.documentElement.clientHeight;
    return r.width > 0 && r.height > 0 && r.top >= Math.max(0, p.top) - 1 && r.bottom <= Math.min(vh, p.bottom) + 1;
  });
}

async function inView(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    const chat = document.getElementById('chat').getBoundingClientRect();
    const inWindow = r.top >= 0 && r.left >= 0 && r.bottom <= vh && r.right <= vw;
    const inChat = r.top >= chat.top - 1 && r.bottom <= chat.bottom + 1;
    return inWindow && inChat && r.width > 0 && r.height > 0;
  });
}

/** planTurnState reads the last turn's tool-call groups and what of them is shown. */
async function planTurnState(page) {
  return page.evaluate(() => {
    const turns = document.querySelectorAll('#chat [data-turn-id]');
    const turn = turns[turns.length - 1];
    const groups = [...turn.querySelectorAll('[data-testid="tool-group"]')];
    const visible = (el) => el.checkVisibility();
    return {
      groups: groups.map((g) => ({
        open: g.open,
        facts: g.querySelector('[data-testid="tool-group-facts"]').innerText.trim(),
        count: Number(g.querySelector('[data-testid="tool-group-facts"]').dataset.count),
        cards: g.querySelectorAll('[data-testid="tool-call"]').length,
      })),
      visibleCards: [...turn.querySelectorAll('[data-testid="tool-call"]')].filter(visible).length,
      chatBuild: turn.querySelectorAll('[data-testid="chat-build-plan-button"]').length,
    };
  });
}

function checkPlanTurn(state, how) {
  assert.ok(state.groups.length >= 1 && state.groups.length <= 3, `${how}: the plan turn's calls are a few summary lines: ${JSON.stringify(state)}`);
  assert.equal(state.visibleCards, 0, `${how}: no tool card shows until a summary line is opened`);
  const calls = state.groups.reduce((n, g) => n + g.count, 0);
  assert.ok(calls >= 5, `${how}: the groups hold the turn's calls (${calls})`);
  for (const g of state.groups) assert.equal(g.cards, g.count, `${how}: a group's count is its cards`);
  const facts = state.groups.map((g) => g.facts).join(' | ');
  assert.match(facts, /\d+ catalog look-ups?/, facts);
  assert.match(facts, /plan drafted/, facts);
  assert.doesNotMatch(facts, /running/, facts);
  assert.equal(state.chatBuild, 1, `${how}: the plan turn offers the build`);
}

for (const [name, viewport] of Object.entries(sizes)) {
  test(`after planning, Build this plan is under the answer and the tool calls are one line (${name})`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    const { page, problems } = await b.openAs(alice, viewport);
    const id = await newConversation(page);
    // An empty conversation offers example requests; one goes into the box.
    const suggestion = byTestId(page, 'suggestion').first();
    await suggestion.focus();
    await page.keyboard.press('Enter');
    assert.equal(await byTestId(page, 'message-input').inputValue(), await suggestion.innerText());
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'message-input');
    await send(page, acceptanceRequest);
    await waitIdle(page, api, id);
    assert.equal(await byTestId(page, 'suggestion').count(), 0, 'the examples leave with the first turn');
    // The answer is announced and has focus.
    await page.waitForFunction(() => document.activeElement?.dataset.role === 'assistant');
    assert.match(await byTestId(page, 'announcer').textContent(), /^Assistant: /);
    assert.equal(await byTestId(page, 'announcer').getAttribute('aria-live'), 'polite');

    // The planner titled the new conversation, once.
    await page.waitForFunction(() => document.querySelector('[data-testid="conversation-title"]').innerText !== 'New conversation');
    const autoTitle = (await api.conversation(id)).title;
    assert.notEqual(autoTitle, 'New conversation');

    // Live: the stream drew the groups and the button.
    const chatBuild = byTestId(page, 'chat-build-plan-button');
    await chatBuild.waitFor();
    checkPlanTurn(await planTurnState(page), 'live');
    if (name === 'desktop') {
      assert.equal(await page.evaluate(() => window.scrollY), 0);
      assert.ok(await inView(chatBuild), 'Build this plan is on screen without scrolling');
    }
    assert.equal(await byTestId(page, 'build-plan-button').count(), 1, 'the plan panel offers it too');

    // An error banner floats: the composer stays where it was and usable;
    // a connection error clears when the stream reconnects.
    const composerBox = await byTestId(page, 'composer').boundingBox();
    await page.evaluate(() => {
      const f = document.getElementById('flash');
      f.textContent = 'The server could not be reached. Check the connection and try again.';
      f.setAttribute('data-connection', '');
    });
    assert.deepEqual(await byTestId(page, 'composer').boundingBox(), composerBox, 'the banner does not move the composer');
    await byTestId(page, 'send-button').scrollIntoViewIfNeeded();
    const sendBox = await byTestId(page, 'send-button').boundingBox();
    assert.equal(await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.dataset.testid, { x: sendBox.x + sendBox.width / 2, y: sendBox.y + sendBox.height / 2 }), 'send-button');
    await page.evaluate(() => document.getElementById('live').dispatchEvent(new CustomEvent('htmx:sseOpen', { bubbles: true })));
    assert.equal(await byTestId(page, 'flash').textContent(), '');

    // On page load: the same.
    await page.reload();
    await waitConnected(page);
    checkPlanTurn(await planTurnState(page), 'page load');
    if (name === 'desktop') assert.ok(await inView(chatBuild), 'Build this plan is on screen without scrolling after a reload');
    assert.deepEqual(await horizontalOverflow(page), []);

    // A summary line opens from the keyboard to the calls' cards.
    const group = byTestId(page, 'tool-group').last();
    await group.locator(':scope > summary').focus();
    assert.ok(await group.locator(':scope > summary').evaluate((el) => getComputedStyle(el).outlineStyle !== 'none'), 'the summary line shows focus');
    await page.keyboard.press('Enter');
    await byTestId(group, 'tool-call').first().waitFor({ state: 'visible' });
    await page.keyboard.press('Enter');
    assert.equal(await group.evaluate((d) => d.open), false);

    // The chat's button builds; both offers then say it was approved.
    await chatBuild.focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="chat-handoff"][data-status="accepted"]').waitFor({ timeout: 30_000 });
    await waitIdle(page, api, id);
    assert.equal(await byTestId(page, 'chat-build-plan-button').count(), 0);
    assert.equal(await byTestId(page, 'build-plan-button').count(), 0);
    const steps = await graphState(page);
    assert.equal(steps.find((s) => s.root)?.count, 89);
    assert.equal(await byTestId(page, 'building').isVisible(), false, 'nothing is left to build');
    // When the build ends, the result's count, Undo and Export are on
    // screen (desktop: in the right column's view, not scrolled away to
    // the sub-agents).
    if (name === 'desktop') {
      for (const id of ['strategy-root-count', 'undo-button', 'export-wdk']) {
        assert.ok(await inPanels(byTestId(page, id)), `${id} is on screen when the build ends`);
      }
    }
    assert.equal((await api.conversation(id)).title, autoTitle, 'the automatic title is given once');

    // The offline engine introduces itself once, not in every answer.
    const answers = await page.$$eval('#chat [data-role="assistant"] [data-testid="message-text"]', (els) => els.map((el) => el.innerText));
    assert.ok(answers.length >= 2, `a plan answer and a build answer: ${answers.length}`);
    assert.equal(answers.filter((a) => a.includes('not a language model')).length, 1, 'one introduction in the chat');
    assert.match(await byTestId(page, 'model-select').locator('option[value="offline"]').innerText(), /not a language model/);

    // The build turn's calls are summary lines too.
    const build = await planTurnState(page);
    assert.equal(build.visibleCards, 0, JSON.stringify(build));
    assert.ok(build.groups.some((g) => /delegation/.test(g.facts)), JSON.stringify(build));

    // The strategy panel now comes first in the right column (above the
    // plan on a phone); long step names wrap instead of being cut.
    const top = async (id) => (await byTestId(page, id).boundingBox()).y;
    assert.ok((await top('strategy')) < (await top('artifacts')), 'the strategy panel is first');
    const lines = await page.$$eval('[data-testid="graph-step-name"]', (els) => els.map((el) => el.querySelectorAll('tspan').length));
    assert.ok(lines.some((n) => n > 1), `a long step name wraps: ${lines}`);
    assert.ok(await page.$$eval('[data-testid="graph-step-name"]', (els) => els.every((el) => !el.textContent.includes('…'))), 'no step name is cut');

    // Results: gene ids link to the site's gene pages; TSV and CSV download.
    // The chosen step is marked and stays in view.
    const root = steps.find((s) => s.root);
    const rootBox = page.locator(`[data-testid="graph-step"][data-step-id="${root.id}"]`);
    await rootBox.click();
    await page.locator(`[data-testid="graph-step"][data-step-id="${root.id}"][aria-current="true"]`).waitFor();
    const link = byTestId(page, 'gene-link').first();
    await link.waitFor();
    await page.waitForTimeout(300); // the scrolls after the results settle
    const stepInView = await rootBox.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= document.documentElement.clientHeight;
    });
    assert.ok(stepInView, 'the chosen step stays in view');
    assert.equal(await page.locator('[data-testid="graph-step"].selected').count(), 1);
    if (name === 'desktop') await screenshot(page, 'strategy-step-chosen');
    const href = await link.getAttribute('href');
    assert.match(href, /^https:\/\/plasmodb\.org\/.*gene\/PF3D7_/i, href);
    assert.equal(await link.getAttribute('target'), '_blank');
    for (const [format, sep] of [['tsv', '\t'], ['csv', ',']]) {
      const url = await byTestId(page, `download-${format}`).getAttribute('href');
      const res = await page.request.get(url);
      assert.equal(res.status(), 200, `${format} download`);
      // A "# " line says where the genes come from, then the header and the rows.
      const lines = (await res.text()).trim().split(/\r?\n/).filter((l) => !l.startsWith('#'));
      assert.equal(lines.length, 1 + 89, `${format}: a header and the 89 genes`);
      assert.ok(lines[0].includes(sep), `${format} header: ${lines[0]}`);
      assert.match(lines[1], /PF3D7_/);
    }

    // Undo names the turn it reverts, the build and its changes: one click
    // takes back the whole build, to the empty strategy before it, and
    // there is nothing more to undo.
    const undo = byTestId(page, 'undo-button');
    const first = (await undo.innerText()).trim();
    assert.match(first, /^Undo: \d+ changes by “build: /, first);
    const version = (await api.strategy(id)).version;
    await undo.click();
    await page.waitForFunction((t) => document.querySelector('[data-testid="undo-button"]')?.innerText.trim() !== t, first);
    assert.equal((await api.strategy(id)).version, version + 1, 'the undo is a new version');
    assert.equal((await api.strategy(id)).steps.length, 0, 'the strategy is as it was before the build');
    assert.ok(await undo.isDisabled(), 'nothing before the build to undo');
    // Redo takes the undo back, named the same.
    const redo = byTestId(page, 'redo-button');
    assert.equal((await redo.innerText()).trim(), first.replace(/^Undo/, 'Redo'));
    await redo.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((t) => document.querySelector('[data-testid="undo-button"]')?.innerText.trim() === t, first);
    assert.equal(await byTestId(page, 'redo-button').count(), 0, 'nothing more to redo');
    assert.equal((await api.strategy(id)).version, version + 2);
    assert.equal((await graphState(page)).find((s) => s.root)?.count, 89, 'the strategy is back as built');
    assert.deepEqual(problems.pageErrors, []);
  });
}

test('the page follows the system dark mode (light and dark pictures of the plan with its build button)', async () => {
  for (const [scheme, shot] of [['light', 'plan-build-button'], ['dark', 'plan-build-button-dark']]) {
    const { page, problems } = await b.openAs(env().alice, sizes.desktop);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`/conversations/${planned.id}`);
    await waitConnected(page);
    await byTestId(page, 'chat-build-plan-button').waitFor();
    const look = await page.evaluate(() => {
      const lum = (c) => {
        const [r, g, b] = c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((v) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const contrast = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
      const bg = (sel) => getComputedStyle(document.querySelector(sel)).backgroundColor;
      const fg = (sel) => getComputedStyle(document.querySelector(sel)).color;
      return {
        body: lum(bg('body')),
        text: contrast(fg('body'), bg('body')),
        panelText: contrast(fg('#artifacts'), bg('#artifacts')),
        muted: contrast(fg('.turn-end'), bg('#chat')),
        button: contrast(fg('[data-testid="chat-build-plan-button"]'), bg('[data-testid="chat-build-plan-button"]')),
        input: contrast(fg('#message-input'), bg('#message-input')),
      };
    });
    if (scheme === 'dark') assert.ok(look.body < 0.05, `the body background is dark: ${JSON.stringify(look)}`);
    else assert.ok(look.body > 0.8, `the body background is light: ${JSON.stringify(look)}`);
    for (const k of ['text', 'panelText', 'muted', 'button', 'input']) {
      assert.ok(look[k] >= 4.5, `${scheme}: ${k} contrast ${look[k].toFixed(2)} is at least 4.5`);
    }
    await screenshot(page, shot);
    assert.deepEqual(problems.pageErrors, []);
  }
});

for (const [name, viewport] of Object.entries(sizes)) {
  test(`Stop takes Send's place, Esc stops, then Retry and Build again are offered (${name})`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    const { page, problems } = await b.openAs(alice, viewport);
    const id = await newConversation(page);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'message-input', 'a new conversation starts in the message box');
    const recovery = byTestId(page, 'recovery');
    assert.equal(await recovery.isVisible(), false, 'nothing to retry in a new conversation');
    await send(page, acceptanceRequest, { mode: 'plan', model: 'scripted:e2e_steer.json' });
    await waitIdle(page, api, id);
    await byTestId(page, 'chat-build-plan-button').click();

    // The build's sub-agents hang: the strategy panel lists the steps
    // still to build with their state, and Stop shows where Send was.
    await page.locator('[data-testid="node"][data-status="running"]').first().waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="strategy"] [data-testid="building-node"][data-status="running"]').first().waitFor();
    const building = await page.$$eval('[data-testid="building-node"]', (els) => els.map((el) => el.dataset.status));
    assert.equal(building.length, 5, `the plan's five nodes are to build: ${building}`);
    assert.ok(building.includes('queued'), `the combines wait: ${building}`);
    if (name === 'desktop') {
      assert.ok(await inPanels(byTestId(page, 'building')), 'the steps to build are on screen beside the chat');
      await screenshot(page, 'delegation-building');
    }
    const stop = byTestId(page, 'stop-button');
    assert.equal(await stop.isVisible(), true);
    if (name === 'desktop') {
      const [s, t] = [await stop.boundingBox(), await byTestId(page, 'send-button').boundingBox()];
      const overlap = Math.min(s.x + s.width, t.x + t.width) - Math.max(s.x, t.x) > 0 &&
        Math.min(s.y + s.height, t.y + t.height) - Math.max(s.y, t.y) > 0;
      assert.ok(overlap, `Stop is where Send was (stop ${JSON.stringify(s)}, send ${JSON.stringify(t)})`);
    } else {
      // A phone: the status and Stop float at the foot of the screen,
      // at the top of the chat and down by the sub-agents alike.
      const onScreen = () => stop.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= document.documentElement.clientHeight && r.height > 0;
      });
      for (const where of ['top', 'subagents']) {
        if (where === 'top') await page.evaluate(() => window.scrollTo(0, 0));
        else await byTestId(page, 'subagents').scrollIntoViewIfNeeded();
        assert.ok(await onScreen(), `Stop is on screen with the page at ${where}`);
      }
      assert.match(await byTestId(page, 'run-status').innerText(), /Building the strategy/);
      await screenshot(page, 'phone-building');
    }
    assert.equal(await byTestId(page, 'send-button').evaluate((el) => getComputedStyle(el).visibility), 'hidden');
    assert.equal(await recovery.isVisible(), false);

    // Esc stops the turn.
    await page.locator('body').press('Escape');
    let conv = await waitIdle(page, api, id, 15_000);
    assert.equal(conv.turns.at(-1).status, 'cancelled');
    await recovery.waitFor({ state: 'visible' });
    assert.match(await recovery.innerText(), /Stopped/);
    const retry = byTestId(recovery, 'retry-button');
    const again = byTestId(recovery, 'build-again-button');
    assert.equal(await retry.isVisible(), true);
    assert.equal(await again.isVisible(), true);
    if (name === 'desktop') await screenshot(page, 'stopped-retry');
    // Reloaded, the page offers the same.
    await page.reload();
    await waitConnected(page);
    assert.equal(await retry.isVisible(), true);
    assert.equal(await again.isVisible(), true);

    // Build again sends the same plan to the executor; Esc stops it too.
    const turnsBefore = conv.turns.length;
    await again.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.querySelectorAll('#chat [data-turn-id]').length > n, turnsBefore);
    const rebuilt = page.locator('#chat [data-turn-id]').last();
    assert.match(await rebuilt.locator('[data-role="user"] [data-testid="message-text"] p').innerText(), /^Build again: /);
    await page.waitForFunction(() => document.getElementById('stop-form')?.dataset.running === 'true' ||
      document.querySelector('#chat [data-turn-id]:last-child .turn-end')?.dataset.status !== 'running');
    await page.locator('body').press('Escape');
    conv = await waitIdle(page, api, id, 15_000);
    assert.equal(conv.turns.at(-1).mode, 'execute');
    assert.equal(conv.turns.length, turnsBefore + 1);

    // Retry sends the researcher's last message again, in plan mode.
    await byTestId(page, 'retry-button').click();
    await page.waitForFunction((n) => document.querySelectorAll('#chat [data-turn-id]').length > n, turnsBefore + 1);
    conv = await api.waitIdle(id);
    assert.equal(conv.turns.at(-1).mode, 'plan');
    const last = page.locator('#chat [data-turn-id]').last();
    assert.equal((await last.locator('[data-role="user"] [data-testid="message-text"]').innerText()).trim(), acceptanceRequest);
    assert.deepEqual(problems.pageErrors, []);
  });
}
