// Drives code-server (a real VS Code, in Debian's chromium through
// playwright-core) with the packaged agentls extension installed, against
// the scripted model of testdata/e2e/scripts/vscode.jsonl. Started by
// cmd/agentls/e2e_test.go (TestE2E/VSCode), which starts code-server:
//
//	node driver.mjs --url URL --workspace DIR --shots DIR --result FILE
//
// Each step waits generously for what a user would see, takes a
// screenshot, and on failure also a screenshot named fail-STEP.png. The
// result file is JSON: {ok, checks[], failures[]}.

import { writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const args = Object.fromEntries(
	process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
for (const k of ['url', 'workspace', 'shots', 'result']) {
	if (!args[k]) {
		console.error(`driver.mjs: --${k} is required`);
		process.exit(2);
	}
}
const browserPath = args.chromium ?? '/usr/bin/chromium';
const WAIT = 60_000; // a UI element, on a shared 2-core machine
mkdirSync(args.shots, { recursive: true });

const checks = [];
const failures = [];
let page;
let shotN = 0;

function finish(code) {
	writeFileSync(args.result, JSON.stringify({ ok: failures.length === 0 && code === 0, checks, failures }, null, 2));
	process.exit(code);
}

async function shot(name) {
	shotN++;
	const file = join(args.shots, `${String(shotN).padStart(2, '0')}-${name}.png`);
	await page.screenshot({ path: file }).catch((e) => console.error(`screenshot ${file}: ${e}`));
	return file;
}

/** step runs fn; a failure is recorded with a screenshot and ends the run. */
async function step(name, fn) {
	const t0 = Date.now();
	try {
		await fn();
		checks.push(`${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
		console.log(`ok   ${name}`);
	} catch (e) {
		failures.push(`${name}: ${e?.stack ?? e}`);
		console.log(`FAIL ${name}: ${e}`);
		await page?.screenshot({ path: join(args.shots, `fail-${name}.png`) }).catch(() => undefined);
		throw e;
	}
}

const browser = await chromium
	.launch({
		executablePath: browserPath,
		args: [
			'--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync',
		],
	})
	.catch((e) => {
		failures.push(`cannot start ${browserPath}: ${e}`);
		finish(1);
	});

try {
	const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
	page = await ctx.newPage();
	page.setDefaultTimeout(WAIT);
	await run();
	await browser.close();
	finish(0);
} catch (e) {
	await browser.close().catch(() => undefined);
	finish(1);
}

// ---- helpers on VS Code's UI

async function command(title) {
	await page.keyboard.press('F1');
	const input = page.locator('.quick-input-widget input');
	await input.waitFor({ state: 'visible' });
	await input.fill('>' + title);
	const item = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
	await item.waitFor({ state: 'visible' });
	await input.press('Enter');
}

async function answerInputBox(text) {
	const input = page.locator('.quick-input-widget input');
	await input.waitFor({ state: 'visible' });
	await input.fill(text);
	await input.press('Enter');
}

async function openFile(name) {
	await page.keyboard.press('Control+P');
	const input = page.locator('.quick-input-widget input');
	await input.waitFor({ state: 'visible' });
	await input.fill(name);
	await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible' });
	await input.press('Enter');
	await page.locator(`.tab.active`, { hasText: name }).waitFor({ state: 'visible' });
	await page.locator('.monaco-editor .view-lines').first().waitFor({ state: 'visible' });
}

/** selectLines selects whole lines from..to (1-based) in the active editor. */
async function selectLines(from, to) {
	await page.locator('.monaco-editor .view-lines').first().click();
	await page.keyboard.press('Control+Home');
	for (let i = 1; i < from; i++) await page.keyboard.press('ArrowDown');
	for (let i = from; i <= to; i++) await page.keyboard.press('Shift+ArrowDown');
	await page.locator('.statusbar-item', { hasText: /\(\d+ selected\)/ }).first().waitFor({ state: 'visible' });
}

async function notification(text) {
	const toast = page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
	await toast.waitFor({ state: 'visible' });
	return toast;
}

async function run() {
	await step('activation', async () => {
		await page.goto(`${args.url}/?folder=${encodeURIComponent(args.workspace)}`);
		await page.locator('.monaco-workbench').waitFor({ state: 'visible' });
		await openFile('main.go');
		await shot('editor');
	});
	await step('plan', async () => {
		await selectLines(5, 7);
		await command('agentls: Plan');
		await answerInputBox('Capitalize the greeting');
		await notification('agentls plan done');
		await shot('plan');
	});
	await step('execute', async () => {
		await command('agentls: Execute');
		await answerInputBox('Capitalize both words');
		// The Refactor Preview shows both hunks, unticked (needsConfirmation).
		const hunk1 = page.locator('.monaco-list-row[aria-label^="line 6,"]');
		const hunk2 = page.locator('.monaco-list-row[aria-label^="line 10,"]');
		await hunk1.waitFor({ state: 'visible' });
		await hunk2.waitFor({ state: 'visible' });
		await hunk1.locator('.edit-checkbox').click();
		await page.locator('.monaco-list-row[aria-label^="line 6,"] .edit-checkbox[aria-checked="true"]').waitFor({ state: 'visible' });
		await shot('refactor-preview');
		await page.getByRole('button', { name: 'Apply', exact: true }).click();
		await notification('agentls execute done');
		await shot('applied');
		const text = readFileSync(join(args.workspace, 'main.go'), 'utf8');
		if (!text.includes('"Hello, "') || !text.includes('greet("world")')) {
			throw new Error(`main.go on disk should have the ticked hunk only:\n${text}`);
		}
	});
}
