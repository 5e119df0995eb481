// axe-core (pinned in package.json, run in the page) finds no serious or
// critical violation on the home, conversation and results views. At
// 1440×900 and 390×844.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { env, useBrowser, Api } from './lib/harness.js';
import { waitConnected, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};
const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axeProblems runs axe-core on the page, with the check that an element's
 * accessible name contains its visible text, and returns the serious and
 * critical violations as "rule: target" lines.
 */
async function axeProblems(page) {
  // Evaluated through the DevTools protocol, which the page's
  // Content-Security-Policy (script-src 'self') does not govern.
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { rules: { 'label-content-name-mismatch': { enabled: true } } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.targets.slice(0, 3).map((t) => `${v.id} (${v.impact}: ${v.help}): ${t} [${v.targets.length} in all]`));
}

for (const [name, viewport] of Object.entries(sizes)) {
  test(`axe finds no serious or critical violation on home, conversation and results (${name})`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    const conv = await buildAcceptance(api, `Accessible (${name})`);
    const { page } = await b.openAs(alice, viewport);

    await page.goto('/');
    assert.deepEqual(await axeProblems(page), [], 'home');

    await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);
    await page.locator('[data-testid="graph-step"]').first().waitFor();
    assert.deepEqual(await axeProblems(page), [], 'conversation');

    await page.locator(`[data-testid="graph-step"][data-step-id="${conv.root.id}"]`).click();
    await page.locator(`[data-testid="results-table"][data-step-id="${conv.root.id}"]`).waitFor();
    assert.deepEqual(await axeProblems(page), [], 'results');
  });
}
