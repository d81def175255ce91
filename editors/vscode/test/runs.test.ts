// Unit test of the run view's text (src/runs.ts; DESIGN.md E16, E18,
// T22; issue 21): under a command's result, the files it added, changed
// and deleted, one a line, in place of the [files …] lines of its output,
// with control characters made visible. Run by
// cmd/agentls/files_landed_test.go (TestFilesLanded_Issue21_VSCodeRunView),
// which bundles it with esbuild (the `vscode` module is test/vscode.ts)
// and runs it with Node; it exits 1 when a check fails.

import * as vscode from 'vscode';

import type * as protocol from '../src/protocol';
import { Runs, toolResultLines, visible } from '../src/runs';

const fake = vscode as unknown as typeof import('./vscode');

let failed = 0;

function check(what: string, got: unknown, want: unknown): void {
	const g = JSON.stringify(got, null, 1);
	const w = JSON.stringify(want, null, 1);
	if (g === w) {
		console.log(`ok   ${what}`);
		return;
	}
	failed++;
	console.log(`FAIL ${what}\n  got:  ${g}\n  want: ${w}`);
}

// visible escapes as the server's sandbox.Visible does.
for (const [input, want] of [
	['main.go', 'main.go'],
	['a\x1b[2Jb', 'a\\x1b[2Jb'],
	['x\u202egnp.exe', 'x\\u202egnp.exe'],
	['l1\r\nl2\tt', 'l1\\r\\nl2\\tt'],
	['c1\u0085del\x7f nul\x00', 'c1\\u0085del\\x7f nul\\x00'],
	['zero\u200bwidth\ufeff tag\u{e0041}', 'zero\\u200bwidth\\ufeff tag\\ue0041'],
	['lone \ud800 surrogate', 'lone \\ud800 surrogate'],
	['back\\slash é 中 😀', 'back\\slash é 中 😀'],
]) {
	check(`visible: ${want}`, visible(input), want);
}

const evil = 'e\x1b[31mvil\u202e.txt';
const landed: protocol.RunEvent = {
	sessionId: 's1',
	kind: 'toolResult',
	turn: 1,
	tool: 'run_command',
	ok: true,
	subject: 'echo x > new.txt && gofmt -w main.go && rm old.txt',
	exitCode: 0,
	output:
		'exit code 0, 40ms\n[files added: ' + evil + ', new.txt]\n[files changed: main.go]\n[files deleted: old.txt]\n' +
		'[not landed: added .git/hooks/x: the user did not approve it (git runs it)]\n[stdout]\n\tok\x1b[0m\n',
	files: [
		{ path: evil, change: 'added' },
		{ path: 'main.go', change: 'changed' },
		{ path: 'new.txt', change: 'added' },
		{ path: 'old.txt', change: 'deleted' },
	],
};
const landedLines = [
	'  ✓ run_command echo x > new.txt && gofmt -w main.go && rm old.txt: exit 0',
	'    + added e\\x1b[31mvil\\u202e.txt',
	'    ~ changed main.go',
	'    + added new.txt',
	'    - deleted old.txt',
	'    │ exit code 0, 40ms',
	'    │ [not landed: added .git/hooks/x: the user did not approve it (git runs it)]',
	'    │ [stdout]',
	'    │ \tok\\x1b[0m',
];
check('a command lists its landed files', toolResultLines(landed), landedLines);

check(
	'a command without files keeps its output head',
	toolResultLines({ sessionId: 's1', kind: 'toolResult', tool: 'run_command', ok: true, subject: 'go vet', exitCode: 0, output: 'exit code 0, 1s\n[files added: x]\n' }),
	['  ✓ run_command go vet: exit 0', '    │ exit code 0, 1s', '    │ [files added: x]'],
);

const many: protocol.CommandFile[] = [];
for (let i = 0; i < 103; i++) many.push({ path: `gen/${String(i).padStart(3, '0')}.go`, change: 'added' });
const manyLines = toolResultLines({ sessionId: 's1', kind: 'toolResult', tool: 'run_command', ok: true, subject: 'go generate', exitCode: 0, files: many });
check('at most 100 files, the rest counted', [manyLines.length, manyLines[100], manyLines[101]], [102, '    + added gen/099.go', '    … and 3 more files']);

check(
	'a refused call with a control character in its message',
	toolResultLines({ sessionId: 's1', kind: 'toolResult', tool: 'run_command', ok: false, code: 'approval_denied', subject: 'rm -rf\nbuild', message: 'no\x07' }),
	['  ✗ run_command rm -rf\\nbuild refused: approval_denied — no\\x07'],
);

// Through the run view: a run's channel gets the same lines, a sub-agent's indented.
const runs = new Runs(vscode.Uri.file('/tmp/agentls-test-storage'));
const run = runs.begin('execute', 'main.go', 'format main.go');
runs.event({ sessionId: 's1', kind: 'started', mode: 'execute', title: 'agentls execute' });
runs.event({ sessionId: 's1', kind: 'toolCall', turn: 1, tool: 'run_command' });
runs.event(landed);
runs.event({ ...landed, depth: 1, files: [{ path: 'sub/out.txt', change: 'added' }], output: 'exit code 0, 1ms\n[files added: sub/out.txt]\n' });
const text = fake.channels[fake.channels.length - 1].text;
check('the run has its channel', fake.channels[fake.channels.length - 1].name, `agentls run ${run.n}: execute`);
const start = text.indexOf(landedLines[0]);
check('the channel shows the command with its files', start >= 0 ? text.slice(start).split('\n').slice(0, landedLines.length) : text, landedLines);
check(
	"a sub-agent's command and files",
	text.includes('  [sub-agent]   ✓ run_command echo x > new.txt && gofmt -w main.go && rm old.txt: exit 0\n  [sub-agent]     + added sub/out.txt\n  [sub-agent]     │ exit code 0, 1ms\n'),
	true,
);
check('no raw control character in the channel', /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/.test(text), false);
runs.dispose();

if (failed) {
	console.log(`${failed} check(s) failed`);
	process.exit(1);
}
console.log('all checks passed');
