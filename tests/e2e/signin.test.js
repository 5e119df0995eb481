// Signing in and out through the forms, at both viewports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, signIn, viewports, screenshot } from './lib/harness.js';

const b = useBrowser();

test('an anonymous visitor is sent to the sign-in page', async () => {
  const current = await b.open();
  const { page } = current;
  const res = await page.goto('/');
  assert.equal(new URL(page.url()).pathname, '/signin');
  assert.equal(res.status(), 200);
  await byTestId(page, 'signin-form').waitFor();
});

test('a wrong password shows an error and keeps the email', async () => {
  const { alice } = env();
  const current = await b.open();
  const { page } = current;
  await page.goto('/signin');
  await page.getByLabel('Email').fill(alice.email);
  await page.getByLabel('Password').fill(alice.password + 'x');
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/signin'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  assert.equal(res.status(), 401);
  const error = byTestId(page, 'signin-error');
  await error.waitFor();
  assert.match(await error.innerText(), /wrong email or password/i);
  assert.equal(await page.getByLabel('Email').inputValue(), alice.email);
  assert.equal(await page.getByLabel('Password').inputValue(), '', 'the password is not echoed back');
  await screenshot(page, 'signin-error');
});

for (const [name, viewport] of Object.entries(viewports)) {
  test(`the right password lands on the conversation list (${name})`, async () => {
    const { alice } = env();
    const current = await b.open(viewport);
    const { page } = current;
    await signIn(page, alice);
    await page.locator('[data-testid="conversation-list"], [data-testid="empty-list"]').first().waitFor();
    assert.equal(await byTestId(page, 'user-email').innerText(), alice.email);
    const csrf = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    assert.ok(csrf && csrf.length >= 16, 'the page carries the session CSRF token');
  });
}

test('signing out ends the session', async () => {
  const { alice } = env();
  const current = await b.open();
  const { page, context } = current;
  await signIn(page, alice);
  await Promise.all([page.waitForURL((u) => u.pathname === '/signin'), page.getByRole('button', { name: 'Sign out' }).click()]);
  assert.equal((await context.cookies()).filter((c) => c.name === 'strategist_session').length, 0);
  await page.goto('/');
  assert.equal(new URL(page.url()).pathname, '/signin');
});
