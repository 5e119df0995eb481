// The results table for the bench: the researcher picks the page size (up
// to all rows), sorts by any column (again: from the end) and filters by
// words while typing, over all of a step's genes; the filter box keeps its
// text and focus, the sort survives the filter, and a filter that matches
// nothing says so. At 1440×900 and 390×844, on one built conversation.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';
import { waitConnected, horizontalOverflow, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

let conv;
before(async () => {
  conv = await buildAcceptance(new Api(env().alice), 'Results table');
});

/** table reads the shown rows as {id, symbol, product, type, chromosome}. */
function table(page) {
  return page.$$eval('[data-testid="results-genes"] [data-testid="result-row"]', (rows) =>
    rows.map((r) => {
      const [id, symbol, product, type, chromosome] = [...r.querySelectorAll('td')].map((td) => td.textContent.trim());
      return { id, symbol, product, type, chromosome };
    }),
  );
}

const countLine = (page) => byTestId(page, 'results-count').innerText();

for (const [name, viewport] of Object.entries(sizes)) {
  test(`the results table pages, sorts and filters (${name})`, async () => {
    const { page, problems } = await b.openAs(env().alice, viewport);
    await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);
    await page.locator(`[data-testid="graph-step"][data-step-id="${conv.root.id}"]`).click();
    await byTestId(page, 'results-genes').waitFor();
    assert.match(await countLine(page), /^1–20 of 89 genes/);
    assert.equal((await table(page)).length, 20);
    const first = await table(page);
    assert.ok(first.every((r) => /^Pf3D7_\d\d_v3$/.test(r.chromosome)), 'every row names its chromosome');

    // Page size: all 89 rows, no pager.
    await byTestId(page, 'results-page-size').selectOption('all');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="results-genes"] [data-testid="result-row"]').length === 89);
    assert.equal(await byTestId(page, 'results-next').count(), 0, 'no pager when all rows are shown');

    // Sort by product, then again from the end.
    const lower = (rows) => rows.map((r) => r.product.toLowerCase());
    await byTestId(page, 'sort-product').click();
    await page.locator('th[data-column="product"][aria-sort="ascending"]').waitFor();
    const up = lower(await table(page));
    assert.deepEqual(up, [...up].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'sorted by product');
    await byTestId(page, 'sort-product').click();
    await page.locator('th[data-column="product"][aria-sort="descending"]').waitFor();
    const down = lower(await table(page));
    assert.deepEqual(down, [...up].reverse(), 'sorted from the end');
    assert.equal(down.length, 89, 'still all rows');

    // Filter while typing: the box keeps its text and focus, the sort stays.
    const filter = byTestId(page, 'results-filter');
    await filter.click();
    await filter.pressSequentially('dna', { delay: 40 });
    await page.waitForFunction(() => /matching “dna”/.test(document.querySelector('[data-testid="results-count"]')?.textContent ?? ''));
    const matched = await table(page);
    assert.ok(matched.length > 0 && matched.length < 89, `${matched.length} genes match "dna"`);
    for (const r of matched) assert.match(Object.values(r).join(' ').toLowerCase(), /dna/);
    assert.equal(await filter.inputValue(), 'dna');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'results-filter', 'the filter box keeps focus');
    assert.ok(await page.locator('th[data-column="product"][aria-sort="descending"]').count(), 'the sort survives the filter');
    // Desktop: the table can take most of the width, and give it back.
    const wide = byTestId(page, 'results-wide');
    if (name === 'desktop') {
      const narrow = (await byTestId(page, 'results-genes').boundingBox()).width;
      await wide.click();
      assert.equal(await wide.getAttribute('aria-pressed'), 'true');
      const widened = (await byTestId(page, 'results-genes').boundingBox()).width;
      assert.ok(widened > narrow * 1.5, `the table is ${widened} px wide, was ${narrow}`);
      assert.ok(await page.evaluate(() => {
        const t = document.querySelector('[data-testid="results-genes"] table');
        return t.scrollWidth <= t.parentElement.clientWidth;
      }), 'the wide table shows every column without scrolling sideways');
    } else {
      assert.equal(await wide.isVisible(), false, 'a phone has the whole width already');
    }
    await screenshot(page, name === 'phone' ? 'phone-results-filtered' : 'results-filtered');
    if (name === 'desktop') {
      await wide.click();
      assert.equal(await wide.getAttribute('aria-pressed'), 'false');
    }
    assert.match(await countLine(page), new RegExp(`^1–${matched.length} of ${matched.length} genes? matching “dna” \\(of 89 genes\\)`));

    // Nothing matches: said plainly, no empty table.
    await filter.fill('zzqx');
    await byTestId(page, 'results-no-match').waitFor();
    assert.match(await byTestId(page, 'results-no-match').innerText(), /No gene of these 89 genes matches “zzqx”/);
    assert.equal(await byTestId(page, 'result-row').count(), 0);
    await filter.fill('');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="results-genes"] [data-testid="result-row"]').length === 89);

    assert.deepEqual(await horizontalOverflow(page), []);
    assert.deepEqual(problems.pageErrors, []);
  });
}

// The Columns menu hides and shows columns (previous ids start hidden);
// the choice outlives a redraw of the table and a reload of the page.
test('the results table shows the columns the researcher chooses', async () => {
  const { page, problems } = await b.openAs(env().alice, sizes.desktop);
  const open = async () => {
    await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);
    await page.locator(`[data-testid="graph-step"][data-step-id="${conv.root.id}"]`).click();
    await byTestId(page, 'results-genes').waitFor();
  };
  const shown = (key) => page.locator(`[data-testid="results-genes"] th[data-column="${key}"]`).isVisible();
  await open();
  assert.equal(await shown('previous'), false, 'previous ids start hidden');
  assert.equal(await shown('product'), true);
  await byTestId(page, 'results-columns').locator('summary').click();
  await page.locator('[data-column-toggle="product"]').uncheck();
  await page.locator('[data-column-toggle="previous"]').check();
  assert.equal(await shown('product'), false, 'the product column is hidden');
  assert.equal(await shown('previous'), true, 'the previous ids column is shown');
  // A redraw of the table alone (a new page size) keeps the choice.
  await byTestId(page, 'results-page-size').selectOption('50');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="results-genes"] [data-testid="result-row"]').length === 50);
  assert.equal(await shown('product'), false, 'still hidden after the table is redrawn');
  await open();
  assert.equal(await shown('product'), false, 'still hidden after a reload');
  assert.equal(await shown('previous'), true, 'still shown after a reload');
  await byTestId(page, 'results-columns').locator('summary').click();
  await page.locator('[data-column-toggle="product"]').check();
  await page.locator('[data-column-toggle="previous"]').uncheck();
  assert.equal(await shown('product'), true);
  assert.deepEqual(problems.pageErrors, []);
});
