// Downloads say why they fail: a step's genes download whole through the
// page's script, and a download the server refuses puts its reason on the
// page instead of vanishing. At 1440×900 and 390×844.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { env, useBrowser, byTestId, Api } from './lib/harness.js';
import { buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

for (const [name, viewport] of Object.entries(sizes)) {
  test(`a download arrives whole, and a refused one says why on the page (${name})`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    const conv = await buildAcceptance(api, `Downloads (${name})`);
    const root = conv.root.id;

    const { page, problems } = await b.openAs(alice, viewport);
    await page.goto(`/conversations/${conv.id}`);
    await page.locator(`[data-testid="graph-step"][data-step-id="${root}"]`).click();
    const tsv = byTestId(page, 'download-tsv');
    await tsv.waitFor();

    // The file is saved once all of it arrived: a header and the 89 genes.
    const [download] = await Promise.all([page.waitForEvent('download'), tsv.click()]);
    assert.match(download.suggestedFilename(), /\.tsv$/);
    const lines = (await readFile(await download.path(), 'utf8')).trim().split(/\r?\n/).filter((l) => !l.startsWith('#'));
    assert.equal(lines.length, 1 + 89, 'a header and the 89 genes');
    assert.equal(await byTestId(page, 'flash').innerText(), '', 'no error after a good download');

    // A download the server refuses (the step is gone) says why, and the
    // link is usable again.
    await tsv.evaluate((a) => { a.href = a.href.replace(/steps\/[^/]+\/results/, 'steps/s999/results'); });
    let downloaded = false;
    page.on('download', () => { downloaded = true; });
    await tsv.click();
    await page.waitForFunction(() => document.getElementById('flash').textContent !== '');
    const said = await byTestId(page, 'flash').innerText();
    assert.match(said, /^The download failed: /, said);
    assert.match(said, /no such step/, `the server's reason: ${said}`);
    assert.equal(await tsv.getAttribute('aria-busy'), null);
    assert.equal(downloaded, false, 'nothing was saved');
    assert.ok(await byTestId(page, 'flash').isVisible(), 'the reason is on screen');
    assert.deepEqual(problems.pageErrors, []);
  });
}
