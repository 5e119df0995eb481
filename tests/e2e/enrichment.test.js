// GO enrichment in the results panel: open the acceptance root's genes,
// reach the "GO enrichment" button with the keyboard (a visible focus
// indicator), load the table, and find DNA repair (GO:0006281) with its
// link to the term page in a new tab without opener, at a desktop and a
// phone viewport. Then the chat: "what are these genes enriched for?" in
// execute mode answers with the top terms, their GO ids linked.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';
import { acceptanceRequest, waitConnected, horizontalOverflow, send, waitIdle, chatState } from './lib/conversation.js';

const b = useBrowser();
const sizes = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } };
let built; // a conversation whose strategy is the acceptance strategy

before(async () => {
  const api = new Api(env().alice);
  const conv = await api.createConversation('GO enrichment');
  // In execute mode the offline engine builds a plain request directly.
  await api.startTurn(conv.id, acceptanceRequest, 'execute', 'offline');
  built = await api.waitIdle(conv.id);
  const snap = await api.strategy(conv.id);
  assert.ok(snap.rootStepId, 'the strategy was built');
  built.root = snap.rootStepId;
});

/** openEnrichment opens the root's genes and its GO enrichment by keyboard. */
async function openEnrichment(page) {
  await page.goto(`/conversations/${built.id}`);
  await waitConnected(page);
  await page.locator(`[data-testid="graph-step"][data-step-id="${built.root}"]`).click();
  const results = byTestId(page, 'results-table');
  await results.locator('[data-testid="result-row"]').first().waitFor();
  const button = byTestId(results, 'enrichment-button');
  // Tab from the download links to the button: it is reachable and shows
  // that it has focus.
  await byTestId(results, 'download-json').focus();
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await button.evaluate((el) => document.activeElement === el);
  }
  assert.ok(reached, 'the GO enrichment button is reachable by Tab');
  const outline = await button.evaluate((el) => {
    const s = getComputedStyle(el);
    return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });
  assert.ok(outline.style !== 'none' && outline.width >= 2, `a visible focus indicator: ${JSON.stringify(outline)}`);
  await page.keyboard.press('Enter');
  const table = byTestId(page, 'enrichment-table');
  await table.locator('[data-testid="enrichment-row"]').first().waitFor();
  return table;
}

for (const [name, viewport] of Object.entries(sizes)) {
  test(`the GO enrichment table lists DNA repair with its term link (${name})`, async () => {
    const { page, problems } = await b.openAs(env().alice, viewport);
    const table = await openEnrichment(page);
    const row = table.locator('[data-testid="enrichment-row"][data-go-id="GO:0006281"]');
    assert.equal(await row.count(), 1, 'GO:0006281 is listed');
    assert.match(await row.innerText(), /DNA repair/);
    const link = row.locator('[data-testid="go-link"]');
    assert.equal(await link.getAttribute('href'), 'https://amigo.geneontology.org/amigo/term/GO:0006281');
    assert.equal(await link.getAttribute('rel'), 'noopener');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.match(await row.locator('[data-testid="enrichment-bh"]').innerText(), /e-\d+/, 'a BH-adjusted p-value');
    assert.equal(await table.locator('[data-testid="enrichment-row"][data-go-id="GO:0006260"]').count(), 1, 'GO:0006260 is listed');
    assert.match(await byTestId(page, 'enrichment-limits').innerText(), /molecular function/);
    // The chart draws the top terms, the first (smallest p) at full length,
    // each named and with its p-value in words.
    const bars = byTestId(page, 'enrichment-chart').locator('li');
    const nBars = await bars.count();
    assert.ok(nBars >= 2 && nBars <= 10, `${nBars} bars`);
    assert.equal(await bars.first().locator('rect').getAttribute('width'), '100.0');
    assert.match(await bars.first().innerText(), /p \d/);
    const firstRow = table.locator('[data-testid="enrichment-row"]').first();
    assert.equal(await bars.first().getAttribute('data-go-id'), await firstRow.getAttribute('data-go-id'), 'the chart and the table agree on the top term');
    assert.deepEqual(await horizontalOverflow(page), []);
    // It opens at its top: the heading and the first row's p and BH are on
    // screen, within the table's box (not scrolled off to its right).
    await page.waitForTimeout(300); // the scroll after the table settles
    const seen = await page.evaluate(() => {
      const onScreen = (el) => {
        let r = el.getBoundingClientRect();
        const vh = document.documentElement.clientHeight;
        const vw = document.documentElement.clientWidth;
        let box = el.closest('.table-scroll');
        const b = box ? box.getBoundingClientRect() : { left: 0, right: vw };
        // A pixel of slack each way, as for the box's sides: scrolling to
        // an element's start can leave its top a fraction of a pixel above.
        return r.top >= -1 && r.bottom <= vh + 1 && r.left >= Math.max(0, b.left) - 1 && r.right <= Math.min(vw, b.right) + 1;
      };
      const first = document.querySelector('[data-testid="enrichment-row"]');
      return {
        heading: onScreen(document.getElementById('enrichment-heading')),
        p: onScreen(first.querySelector('[data-testid="enrichment-p"]')),
        bh: onScreen(first.querySelector('[data-testid="enrichment-bh"]')),
      };
    });
    assert.deepEqual(seen, { heading: true, p: true, bh: true }, 'the enrichment opens at its top with p and BH in view');
    // A term's genes are one click away.
    const genes = row.locator('[data-testid="enrichment-genes"]');
    const k = Number((await genes.locator('summary').innerText()).split(' ')[0]);
    await genes.locator('summary').click();
    const ids = genes.locator('li');
    assert.equal(await ids.count(), k, 'the term lists its genes of the step');
    assert.match(await ids.first().innerText(), /^PF3D7_\d{7}/);
    await genes.locator('summary').click();
    await table.evaluate((t) => { t.closest('.table-scroll').scrollLeft = 0; });
    await byTestId(page, 'enrichment').scrollIntoViewIfNeeded();
    await screenshot(page, `go-enrichment-${name}`);
    assert.deepEqual(problems.pageErrors, []);
  });
}

test('"what are these genes enriched for?" answers in the chat with linked GO ids', async () => {
  const { page, problems } = await b.openAs(env().alice, sizes.desktop);
  const api = new Api(env().alice);
  await page.goto(`/conversations/${built.id}`);
  await waitConnected(page);
  await send(page, 'What are these genes enriched for?', { mode: 'execute' });
  await waitIdle(page, api, built.id);
  const last = (await chatState(page)).filter((m) => m.role === 'assistant').pop();
  assert.match(last.text, /DNA repair/);
  assert.match(last.text, /GO:0006281/);
  const link = page.locator('[data-testid="chat"] [data-testid="message"][data-role="assistant"] a[href$="/amigo/term/GO:0006281"]').last();
  assert.equal(await link.count(), 1, 'the GO id in the answer links to its term page');
  assert.match(await link.getAttribute('rel'), /noopener/);
  assert.deepEqual(problems.pageErrors, []);
});
