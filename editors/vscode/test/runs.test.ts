// Unit test of the run view's text (src/runs.ts; DESIGN.md E16, E18,
// T22; issue 21): under a command's result, the files it added, changed
// and deleted, one a line, in place of the [files …] lines of its output,
// with control characters made visible; and (issue 24, E18) the counts
// with stale and the files created and deleted, edit results in words, the
// run view shown as the run begins, one status item that says a question
// waits. Run by
// cmd/agentls/files_landed_test.go (TestFilesLanded_Issue21_VSCodeRunView),
// which bundles it with esbuild (the `vscode` module is test/vscode.ts)
// and runs it with Node; it exits 1 when a check fails.

import * as vscode from 'vscode';

import type * as protocol from '../src/protocol';
import * as hunkReply from '../src/hunks';
import { editLines, editsText, firstLine, Runs, toolResultLines, visible, whyItem, whyLines } from '../src/runs';
import { parseSessions, sessionItem } from '../src/sessions';

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
check('the run view opened with the run', fake.channels[fake.channels.length - 1].shown, true);

// Issue 24 (E18): the counts as the server sends them, stale too, and the files created and deleted when
// the wire names them.
check('counts with stale', editsText({ proposed: 3, applied: 1, rejected: 1, stale: 1 }), 'hunks: 3 proposed, 1 applied, 1 rejected, 1 stale');
check('counts without stale on the wire', editsText({ proposed: 1, applied: 1, rejected: 0 }), 'hunks: 1 proposed, 1 applied, 0 rejected, 0 stale');
check(
	'created and deleted files',
	editsText({ proposed: 2, applied: 2, rejected: 0, stale: 0, created: ['greet_test.go', 'a\x1bb'], deleted: ['old.go'] }),
	'hunks: 2 proposed, 2 applied, 0 rejected, 0 stale; created greet_test.go, a\\x1bb; deleted old.go',
);

// Issue 24: an edit's result reads as prose, not JSON.
const editResult = (output: string): protocol.RunEvent => ({ sessionId: 's1', kind: 'toolResult', tool: 'edit_file', ok: true, subject: 'main.go', output });
check(
	'a partly applied edit in words',
	toolResultLines(editResult('{"path":"main.go","applied":true,"hunks":[{"index":0,"lines":"6","applied":true},{"index":1,"lines":"10-12","applied":false}],"saved":true}')),
	['  ✓ edit_file main.go', '    1 of 2 hunks applied', '    ✓ line 6 applied', '    ✗ lines 10-12 rejected'],
);
check(
	'a new file in words',
	toolResultLines({ ...editResult('{"path":"greet_test.go","applied":true,"hunks":[{"index":0,"lines":"1 (insert)","applied":true}],"saved":false,"reason":"the buffer is \\u0007unsaved"}'), tool: 'write_file' }),
	['  ✓ write_file main.go', '    applied: line 1 (insert)', '    not saved yet', '    the buffer is \\x07unsaved'],
);
check(
	'a refused edit gives its reason, not JSON',
	toolResultLines({ ...editResult(''), ok: false, code: 'approval_denied', message: '{"code":"approval_denied","reason":"the user refused \\"every\\" hunk","recovery":"do not repeat the same change; adapt it to the reason o…' }),
	['  ✗ edit_file main.go refused: approval_denied — the user refused "every" hunk'],
);
check('no JSON in an edit result', toolResultLines(editResult('{"path":"main.go","applied":true,"hunks":[],"saved":true}')).join('\n').includes('{'), false);

// Issue 24 (E18): one status item, which says a question waits until it is answered.
const item = fake.statusItems[fake.statusItems.length - 1];
runs.event({ sessionId: 's1', kind: 'toolCall', turn: 4, tool: 'run_command' });
check('the status item shows the turn', item.text, '$(sync~spin) agentls execute: turn 4: run_command');
const answered = runs.asking();
runs.event({ sessionId: 's1', kind: 'toolCall', turn: 5, tool: 'edit_file' });
check('the status item says a question waits', [item.text, item.backgroundColor?.id], ['$(bell) agentls: waiting for you', 'statusBarItem.warningBackground']);
answered();
answered(); // twice: once is counted
check('after the answer, the run again', [item.text, item.backgroundColor], ['$(sync~spin) agentls execute: turn 5: edit_file', undefined]);
check('one status item', fake.statusItems.length, 1);
runs.dispose();

// Issue 24: the sessions view reads `agentls sessions --json`, one session a line; a task is shown visible.
const listed = parseSessions(
	'{"id":"a1","started":"2026-12-02T10:00:00Z","updated":"2026-12-02T10:05:00Z","mode":"execute","runs":2,"turns":5,"messages":9,"task":"fix\\u001b[2J it"}\n' +
		'{"id":"b2","started":"2026-12-01T10:00:00Z","updated":"2026-12-01T10:00:00Z","mode":"plan","runs":1,"turns":1,"messages":2,"task":"","damaged":"cut off"}\n',
);
check('sessions listed', listed.map((x) => x.id), ['a1', 'b2']);
check('a session entry', [sessionItem(listed[0]).label, sessionItem(listed[0]).detail], ['fix\\x1b[2J it', 'session a1']);
check('a damaged session says so', sessionItem(listed[1]).detail, 'session b2 — damaged: cut off');

// Issue 24 item 8: a plan's toast shows its first line as plain words, not flattened markdown.
check('a plan toast line', firstLine('\n## Plan: **fix** the `cart`\n\n1. read cart.go\n'), 'Plan: fix the cart');
check('a plan toast line, a bullet', firstLine('- step one'), 'step one');
check('a plan toast line, control bytes', firstLine('# evil\u001b[2J'), 'evil\\x1b[2J');
check('a plan toast line, cut', firstLine('x'.repeat(200)).length, 120);

// Issue 28: the review's answer about hunks (src/hunks.ts). An edit as the server builds it: two hunks of main.go.
const mainGo = 'package main\n\nfunc greet(name string) string {\n\treturn "hello, " + name\n}\n\nfunc main() {\n\tgreet("world")\n}\n';
const edit = {
	label: 'agentls: edit_file main.go',
	edit: {
		documentChanges: [
			{
				textDocument: { uri: 'file:///ws/main.go', version: 3 },
				edits: [
					{ range: { start: { line: 3, character: 0 }, end: { line: 4, character: 0 } }, newText: '\treturn "Hi, " + name\n', annotationId: 'agentls.0' },
					{ range: { start: { line: 7, character: 0 }, end: { line: 8, character: 0 } }, newText: '\tgreet("Earth")\n', annotationId: 'agentls.1' },
				],
			},
		],
		changeAnnotations: {
			'agentls.0': { label: 'edit_file: main.go lines 4: return', needsConfirmation: true },
			'agentls.1': { label: 'edit_file: main.go lines 8: greet', needsConfirmation: true },
		},
	},
};
const { offsetAt, proposal, reply, withTexts } = hunkReply;
const hunksLanded = hunkReply.landed;
const p = proposal(edit);
check('proposal: the hunks of an agentls edit', p && [p.uri, p.version, p.create, p.hunks.map((h) => [h.index, h.label])], [
	'file:///ws/main.go',
	3,
	false,
	[[0, 'edit_file: main.go lines 4: return'], [1, 'edit_file: main.go lines 8: greet']],
]);
check('proposal: another server\'s edit goes through', proposal({ edit: { changes: { 'file:///x': [] } } }), undefined);
check('proposal: a new file is one decision', proposal({ edit: { documentChanges: [
	{ kind: 'create', uri: 'file:///ws/n.txt', annotationId: 'agentls.create' },
	{ textDocument: { uri: 'file:///ws/n.txt', version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: 'x', annotationId: 'agentls.create' }] },
] } })?.create, true);
check('offsetAt: line 3, CRLF and CR', [offsetAt('a\r\nb\rc\nd', { line: 3, character: 0 }), offsetAt('ab\ncd', { line: 1, character: 9 })], [7, 5]);
const hunks = p!.hunks;
const first = mainGo.replace('"hello, "', '"Hi, "');
check('landed: hunk 1 of 2', hunksLanded(mainGo, first, hunks), [true, false]);
check('landed: none', hunksLanded(mainGo, mainGo, hunks), [false, false]);
check('landed: both', hunksLanded(mainGo, first.replace('"world"', '"Earth"'), hunks), [true, true]);
check('landed: something else', hunksLanded(mainGo, mainGo.replace('main', 'mian'), hunks), undefined);
const mine = new Map([[0, '\treturn "Hey there, " + name\n']]);
check('landed: the user\'s text', hunksLanded(mainGo, mainGo.replace('"hello, "', '"Hey there, "'), hunks, mine), [true, false]);
const sent = withTexts(edit, mine);
check('withTexts: the user\'s text proposed, labelled', [
	(sent.edit.documentChanges![0] as { edits: { newText: string }[] }).edits.map((e) => e.newText),
	sent.edit.changeAnnotations!['agentls.0'].label,
	edit.edit.changeAnnotations['agentls.0'].label,
], [['\treturn "Hey there, " + name\n', '\tgreet("Earth")\n'], 'edit_file: main.go lines 4: return (your text)', 'edit_file: main.go lines 4: return']);
check('reply: reasons and texts in "agentls"', reply({ applied: true }, { hunks: [{ index: 1, reason: '  keep the world ' }, { index: 0, text: 'x' }, { index: 2, reason: ' ' }] }), {
	applied: true,
	agentls: { hunks: [{ index: 1, reason: 'keep the world' }, { index: 0, text: 'x' }] },
});
check('reply: no reason (Escape) adds nothing', reply({ applied: false }, { reason: '' }), { applied: false });
check('reply: the whole change', reply({ applied: false }, { reason: 'not now' }), { applied: false, agentls: { reason: 'not now' } });
// The run view shows the user's answers.
check('run view: the user\'s reason and change', editLines({ path: 'main.go', applied: true, hunks: [
	{ index: 0, lines: '4', applied: true, user_change: '-a\n+b' },
	{ index: 1, lines: '8', applied: false, user_reason: 'keep\u001b it' },
] }), ['    1 of 2 hunks applied', '    ✓ line 4 applied, with your change', '    ✗ line 8 rejected (your reason: keep\\x1b it)']);

// Why a step ran (issue 28, E21): the explain of a toolResult is kept by its run and told in words.
{
	const why = new Runs(vscode.Uri.file('/tmp/agentls-why'));
	const run = why.begin('execute', 'main.go', 'x');
	why.event({ sessionId: 'w1', kind: 'started' });
	const explain = {
		step: 2, tool: 'run_command', subject: 'go test\u001b[2J', decision: 'ask', rule: 'risk execute', source: 'risk_default',
		origin: 'built-in risk default of profile editor', profile: 'editor', approved_by: 'user(always:workspace)', grant: 'a1',
		because: 'asked because run_command has risk execute',
	};
	why.event({ sessionId: 'w1', kind: 'toolResult', tool: 'run_command', ok: true, exitCode: 0, explain });
	why.event({ sessionId: 'w1', kind: 'toolResult', tool: 'read_file', ok: true });
	check('why: the run keeps each step\'s explanation', run.explains, [explain]);
	check('why: the picker row', whyItem(explain), {
		label: '2. run_command go test\\x1b[2J: ask', description: 'built-in risk default of profile editor', detail: 'asked because run_command has risk execute',
	});
	check('why: the explanation', whyLines(explain), [
		'2. run_command go test\\x1b[2J: ask', 'asked because run_command has risk execute', 'rule: risk execute',
		'from: built-in risk default of profile editor (profile editor)', 'approved by: user(always:workspace) (kept answer a1)',
	]);
	why.dispose();
}

if (failed) {
	console.log(`${failed} check(s) failed`);
	process.exit(1);
}
console.log('all checks passed');
