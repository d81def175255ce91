#!/usr/bin/env node
// An independent LSP client for the agentls end-to-end tests (STYLE.md §8,
// "Real clients"). It is built on Microsoft's vscode-jsonrpc and
// vscode-languageserver-protocol, so framing and message shapes are checked
// against the library VS Code itself uses, not against our own Go types.
//
// One scenario per run:
//
//   node client.mjs --server /path/to/agentls --workspace DIR --scenario NAME
//
// The model endpoint comes from the environment (OPENAI_BASE_URL,
// OPENAI_API_KEY, AGENTLS_MODEL) and is inherited by the server; the Go test
// (cmd/agentls/e2e_test.go) points it at a fake model playing
// testdata/e2e/scripts/node-NAME.jsonl. Every check prints "ok" or "FAIL";
// the exit code is 1 if any check failed, 2 on a crash or timeout.

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import {
	CancellationTokenSource,
	ResponseError,
	StreamMessageReader,
	StreamMessageWriter,
	createMessageConnection,
} from 'vscode-jsonrpc/node';
import {
	ApplyWorkspaceEditRequest,
	CodeActionRequest,
	DidChangeTextDocumentNotification,
	DidOpenTextDocumentNotification,
	DidSaveTextDocumentNotification,
	ErrorCodes,
	ExecuteCommandRequest,
	ExitNotification,
	InitializeRequest,
	InitializedNotification,
	LogMessageNotification,
	LSPErrorCodes,
	PublishDiagnosticsNotification,
	ShowMessageNotification,
	ShowDocumentRequest,
	ShowMessageRequest,
	ShutdownRequest,
	TextDocumentSyncKind,
	WorkDoneProgressCreateRequest,
} from 'vscode-languageserver-protocol';

const { values: opts } = parseArgs({
	options: {
		server: { type: 'string' },
		workspace: { type: 'string' },
		scenario: { type: 'string' },
		timeout: { type: 'string', default: '45000' },
		verbose: { type: 'boolean', default: false },
	},
});
for (const k of ['server', 'workspace', 'scenario']) {
	if (!opts[k]) {
		console.error(`usage: node client.mjs --server BIN --workspace DIR --scenario NAME (missing --${k})`);
		process.exit(2);
	}
}

const AGENTLS_COMMANDS = ['agentls.plan', 'agentls.review', 'agentls.execute', 'agentls.cancel', 'agentls.revert'];
const MAIN_GO = 'main.go';

// ---------------------------------------------------------------------------
// Checks

let passed = 0;
let failed = 0;

function log(...args) {
	console.log(...args);
}

// check records one assertion; detail is printed only when it fails.
function check(cond, what, detail) {
	if (cond) {
		passed++;
		log(`ok   ${what}`);
	} else {
		failed++;
		const d = detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
		log(`FAIL ${what}${d}`);
	}
	return !!cond;
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

// waitFor polls cond every 20 ms until it is truthy or ms have passed.
async function waitFor(cond, ms) {
	const end = Date.now() + ms;
	for (;;) {
		const v = cond();
		if (v) return v;
		if (Date.now() > end) return undefined;
		await sleep(20);
	}
}

// settle turns a request promise into {result} or {error} without throwing.
async function settle(promise) {
	try {
		return { result: await promise };
	} catch (error) {
		return { error };
	}
}

function describeError(e) {
	if (e instanceof ResponseError) return `ResponseError ${e.code} ${e.message} data=${JSON.stringify(e.data)}`;
	return String(e && e.stack ? e.stack : e);
}

// ---------------------------------------------------------------------------
// Text documents (positions are UTF-16 code units, which is what JS strings index)

function offsetAt(text, pos) {
	let line = 0;
	let i = 0;
	while (line < pos.line) {
		const nl = text.indexOf('\n', i);
		if (nl < 0) return text.length;
		i = nl + 1;
		line++;
	}
	const eol = text.indexOf('\n', i);
	const lineEnd = eol < 0 ? text.length : eol;
	return Math.min(i + pos.character, lineEnd);
}

// applyTextEdits applies non-overlapping edits and returns the new text plus
// the incremental didChange events, last edit first so that each range is
// still valid when it is applied.
function applyTextEdits(text, edits) {
	const sorted = edits
		.map((e, i) => ({ e, i, start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end) }))
		.sort((a, b) => b.start - a.start || b.i - a.i);
	const changes = [];
	let out = text;
	for (const { e, start, end } of sorted) {
		out = out.slice(0, start) + e.newText + out.slice(end);
		changes.push({ range: e.range, text: e.newText });
	}
	return { text: out, changes };
}

function sameFile(a, b) {
	try {
		return fileURLToPath(a) === fileURLToPath(b);
	} catch {
		return a === b;
	}
}

// ---------------------------------------------------------------------------
// Session: one server process and one connection

class Session {
	constructor({ experimentalSave = true, clientInfo = { name: 'agentls-e2e-node', version: '1' }, showDocument = false, annotations = true } = {}) {
		this.experimentalSave = experimentalSave;
		this.annotations = annotations;
		this.clientInfo = clientInfo;
		this.showDocument = showDocument;
		this.seq = 0; // orders the server requests: each recorded one gets the next number
		this.showDocuments = [];
		this.workspace = path.resolve(opts.workspace);
		this.rootUri = pathToFileURL(this.workspace).href;
		this.docs = new Map(); // uri -> {text, version, languageId}
		this.progressCreated = [];
		this.progress = []; // {token, value}
		this.diagnostics = new Map(); // uri -> Diagnostic[] (latest)
		this.showMessageRequests = [];
		this.applyEdits = [];
		this.saveRequests = [];
		this.logMessages = [];
		this.otherRequests = [];
		this.protocolErrors = [];
		this.stderr = [];
		// Behaviour, changed per scenario.
		this.onApplyEdit = (params) => this.applyAndAccept(params);
		this.onShowDocument = (params) => this.openShown(params);
		this.chooseAction = (params) => params.actions?.find((a) => a.title === 'Approve') ?? null;
	}

	start() {
		this.child = spawn(opts.server, ['serve'], { cwd: this.workspace, stdio: ['pipe', 'pipe', 'pipe'] });
		this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
		this.child.on('error', (err) => this.protocolErrors.push(`spawn: ${err.message}`));
		this.child.stderr.setEncoding('utf8');
		this.child.stderr.on('data', (d) => {
			for (const line of d.split('\n')) if (line) this.stderr.push(line);
			if (this.stderr.length > 400) this.stderr.splice(0, this.stderr.length - 400);
			if (opts.verbose) process.stderr.write(d);
		});

		const conn = createMessageConnection(new StreamMessageReader(this.child.stdout), new StreamMessageWriter(this.child.stdin));
		this.conn = conn;
		conn.onError(([err]) => this.protocolErrors.push(`connection: ${err?.message ?? err}`));
		conn.onRequest(WorkDoneProgressCreateRequest.type, (p) => {
			this.progressCreated.push(p.token);
			return null;
		});
		conn.onUnhandledProgress((p) => this.progress.push(p));
		conn.onNotification(LogMessageNotification.type, (p) => {
			this.logMessages.push(p);
			if (opts.verbose) log(`[logMessage ${p.type}] ${p.message}`);
		});
		conn.onNotification(ShowMessageNotification.type, (p) => log(`[showMessage ${p.type}] ${p.message}`));
		conn.onNotification(PublishDiagnosticsNotification.type, (p) => this.diagnostics.set(p.uri, p.diagnostics));
		conn.onRequest(ShowMessageRequest.type, async (p, token) => {
			p.seq = ++this.seq;
			this.showMessageRequests.push(p);
			const choice = await this.chooseAction(p, token);
			log(`[showMessageRequest] ${JSON.stringify(p.message)} actions=${JSON.stringify((p.actions ?? []).map((a) => a.title))} -> ${choice ? choice.title : 'null'}`);
			return choice;
		});
		conn.onRequest(ApplyWorkspaceEditRequest.type, (p) => {
			p.seq = ++this.seq;
			this.applyEdits.push(p);
			return this.onApplyEdit(p);
		});
		conn.onRequest(ShowDocumentRequest.type, (p) => {
			p.seq = ++this.seq;
			this.showDocuments.push(p);
			return this.onShowDocument(p);
		});
		conn.onRequest('agentls/saveDocuments', (p) => this.saveDocuments(p));
		conn.onRequest((method, params) => {
			this.otherRequests.push({ method, params });
			log(`[request ${method}] answered null`);
			return null;
		});
		conn.listen();
	}

	async initialize() {
		const capabilities = {
			workspace: {
				applyEdit: true,
				workspaceEdit: {
					documentChanges: true,
					changeAnnotationSupport: { groupsOnLabel: false },
					failureHandling: 'abort',
				},
				workspaceFolders: true,
				executeCommand: { dynamicRegistration: false },
			},
			window: {
				workDoneProgress: true,
				showMessage: { messageActionItem: { additionalPropertiesSupport: false } },
				showDocument: { support: this.showDocument },
			},
			textDocument: {
				synchronization: { dynamicRegistration: false, didSave: true },
				publishDiagnostics: { relatedInformation: false },
				codeAction: { dynamicRegistration: false },
			},
			general: { positionEncodings: ['utf-16'] },
		};
		if (this.experimentalSave) capabilities.experimental = { agentls: { saveDocuments: true } };
		if (!this.annotations) delete capabilities.workspace.workspaceEdit.changeAnnotationSupport;
		const { result, error } = await settle(
			this.conn.sendRequest(InitializeRequest.type, {
				processId: process.pid,
				clientInfo: this.clientInfo,
				rootUri: this.rootUri,
				workspaceFolders: [{ uri: this.rootUri, name: path.basename(this.workspace) }],
				capabilities,
			}),
		);
		if (!check(!error, 'initialize answered', error && describeError(error))) throw new Error('initialize failed');
		this.serverCapabilities = result.capabilities ?? {};
		await this.conn.sendNotification(InitializedNotification.type, {});
		return result;
	}

	open(rel, languageId = 'go') {
		const file = path.join(this.workspace, rel);
		const uri = pathToFileURL(file).href;
		const doc = { uri, file, text: readFileSync(file, 'utf8'), version: 1, languageId };
		this.docs.set(uri, doc);
		this.conn.sendNotification(DidOpenTextDocumentNotification.type, {
			textDocument: { uri, languageId, version: doc.version, text: doc.text },
		});
		return doc;
	}

	findDoc(uri) {
		for (const d of this.docs.values()) if (sameFile(d.uri, uri)) return d;
		return undefined;
	}

	// applyAndAccept is what VS Code does once the user accepts the preview:
	// apply the edits, send didChange, answer applied:true. A file that is
	// not open is read from disk, edited and written back, as an editor
	// that applies to closed files and saves them does.
	async applyAndAccept(params) {
		const changes = params?.edit?.documentChanges;
		if (!Array.isArray(changes)) return { applied: false, failureReason: 'expected documentChanges' };
		for (const change of changes) {
			if (change.kind) return { applied: false, failureReason: `unsupported resource operation ${change.kind}` };
			const doc = this.findDoc(change.textDocument.uri);
			if (!doc) {
				const file = fileURLToPath(change.textDocument.uri);
				writeFileSync(file, applyTextEdits(readFileSync(file, 'utf8'), change.edits).text);
				continue;
			}
			const v = change.textDocument.version;
			if (v !== null && v !== undefined && v !== doc.version) {
				return { applied: false, failureReason: `stale: edit for version ${v}, document is at ${doc.version}` };
			}
		}
		for (const change of changes) {
			const doc = this.findDoc(change.textDocument.uri);
			if (!doc) continue; // written above
			const { text, changes: events } = applyTextEdits(doc.text, change.edits);
			doc.text = text;
			doc.version++;
			await this.conn.sendNotification(DidChangeTextDocumentNotification.type, {
				textDocument: { uri: doc.uri, version: doc.version },
				contentChanges: events,
			});
		}
		return { applied: true };
	}

	// openShown answers window/showDocument: open the file (didOpen with
	// its disk content) and say so.
	openShown(params) {
		const rel = path.relative(this.workspace, fileURLToPath(params.uri));
		if (!this.findDoc(params.uri)) this.open(rel);
		return { success: true };
	}

	// reload is what an editor does when an open, unmodified file changes
	// on disk: take the new content as the next version.
	async reload(doc) {
		doc.text = readFileSync(doc.file, 'utf8');
		doc.version++;
		await this.conn.sendNotification(DidChangeTextDocumentNotification.type, {
			textDocument: { uri: doc.uri, version: doc.version },
			contentChanges: [{ text: doc.text }],
		});
	}

	// saveDocuments answers agentls/saveDocuments like the VS Code extension:
	// write the open documents to disk, send didSave, report what was saved.
	async saveDocuments(params) {
		this.saveRequests.push(params);
		const saved = [];
		for (const uri of params?.uris ?? []) {
			const doc = this.findDoc(uri);
			if (!doc) continue;
			writeFileSync(doc.file, doc.text);
			await this.conn.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: doc.uri }, text: doc.text });
			saved.push(uri);
		}
		return { saved };
	}

	execute(command, args, token) {
		const params = { command };
		if (args !== undefined) params.arguments = args;
		return this.conn.sendRequest(ExecuteCommandRequest.type, params, token);
	}

	// progressFor returns the begin/report/end values seen for one token.
	progressFor(token) {
		return this.progress.filter((p) => p.token === token).map((p) => p.value);
	}

	async shutdown() {
		const { error } = await settle(this.conn.sendRequest(ShutdownRequest.type));
		check(!error, 'shutdown answered', error && describeError(error));
		await this.conn.sendNotification(ExitNotification.type);
		const exit = await Promise.race([this.exited, sleep(5000).then(() => undefined)]);
		check(exit !== undefined, 'server exits after shutdown+exit');
		if (exit) check(exit.code === 0, 'server exit code is 0', exit);
		else this.child.kill('SIGKILL');
		check(this.protocolErrors.length === 0, 'no framing or protocol errors (stdout carries only LSP)', this.protocolErrors);
		this.conn.dispose();
	}

	dumpStderr() {
		log('--- server stderr (last lines) ---');
		for (const line of this.stderr.slice(-80)) log(line);
		log('--- end of server stderr ---');
	}
}

// ---------------------------------------------------------------------------
// Shared checks

function checkInitializeResult(s) {
	const caps = s.serverCapabilities;
	const cmds = caps.executeCommandProvider?.commands ?? [];
	check(AGENTLS_COMMANDS.every((c) => cmds.includes(c)), 'E2 executeCommandProvider lists the agentls commands', cmds);
	check(!!caps.codeActionProvider, 'E2 codeActionProvider advertised', caps.codeActionProvider);
	const sync = caps.textDocumentSync;
	const change = typeof sync === 'number' ? sync : sync?.change;
	check(change === TextDocumentSyncKind.Incremental, 'E9 textDocumentSync.change is Incremental', sync);
	if (typeof sync === 'object') {
		check(sync.openClose === true, 'E9 textDocumentSync.openClose', sync);
		check(!!sync.save, 'E9 textDocumentSync.save', sync);
	}
}

function checkResultShape(res, what) {
	if (!check(res && typeof res === 'object', `${what}: result is an object`, res)) return false;
	check(typeof res.sessionId === 'string' && res.sessionId !== '', `${what}: sessionId is a non-empty string`, res.sessionId);
	check(['done', 'cancelled', 'failed'].includes(res.status), `${what}: status is done|cancelled|failed`, res.status);
	check(typeof res.summary === 'string', `${what}: summary is a string`, res.summary);
	const e = res.edits;
	check(e && ['proposed', 'applied', 'rejected'].every((k) => Number.isInteger(e[k])), `${what}: edits has proposed/applied/rejected counts`, e);
	if (res.steps !== undefined) check(Array.isArray(res.steps), `${what}: steps is an array`, res.steps);
	if (res.findings !== undefined) check(Array.isArray(res.findings), `${what}: findings is an array`, res.findings);
	return true;
}

// checkProgress: E8 — created token, a cancellable begin, and an end.
function checkProgress(s, what) {
	check(s.progressCreated.length > 0, `E8 ${what}: window/workDoneProgress/create sent`);
	const token = s.progressCreated[0];
	const values = s.progressFor(token);
	const begin = values.find((v) => v.kind === 'begin');
	check(!!begin, `E8 ${what}: $/progress begin`, values);
	if (begin) check(begin.cancellable === true, `E8 ${what}: progress is cancellable`, begin);
	check(values.length > 0 && values[values.length - 1].kind === 'end', `E8 ${what}: $/progress ends with end`, values);
}

// checkApplyEditShape: E6 — versioned TextDocumentEdit, one AnnotatedTextEdit
// per hunk, each annotation needing confirmation.
function checkApplyEditShape(s, p, expectedVersion) {
	const we = p?.edit;
	const dc = we?.documentChanges;
	if (!check(Array.isArray(dc) && dc.length === 1, 'E6 applyEdit carries documentChanges with one TextDocumentEdit', p)) return;
	const tde = dc[0];
	const doc = [...s.docs.values()][0];
	check(sameFile(tde.textDocument?.uri, doc.uri), 'E6 TextDocumentEdit targets main.go', tde.textDocument);
	check(tde.textDocument?.version === expectedVersion, `E9 TextDocumentEdit carries the document version (${expectedVersion})`, tde.textDocument);
	check(Array.isArray(tde.edits) && tde.edits.length >= 1, 'E6 TextDocumentEdit has edits', tde.edits);
	const anns = we.changeAnnotations;
	check(anns && typeof anns === 'object', 'E6 changeAnnotations present (client announced changeAnnotationSupport)', we);
	for (const [i, e] of (tde.edits ?? []).entries()) {
		check(typeof e.annotationId === 'string' && e.annotationId !== '', `E6 edit ${i} is an AnnotatedTextEdit`, e);
		const ann = anns?.[e.annotationId];
		check(ann && typeof ann.label === 'string' && ann.label !== '', `E6 edit ${i} annotation has a label`, ann);
		check(ann?.needsConfirmation === true, `E6 edit ${i} annotation needsConfirmation`, ann);
	}
}

function commandArg(doc, instruction, range) {
	const arg = { uri: doc.uri };
	arg.range = range ?? { start: { line: 4, character: 0 }, end: { line: 6, character: 1 } };
	if (instruction !== undefined) arg.instruction = instruction;
	return arg;
}

// ---------------------------------------------------------------------------
// Scenarios

const scenarios = {
	// execute: edit proposed, accepted, applied, saved (E2 E3 E6 E8 E9).
	async execute(s) {
		checkInitializeResult(s);
		const doc = s.open(MAIN_GO);
		const before = doc.text;

		const ca = await settle(
			s.conn.sendRequest(CodeActionRequest.type, {
				textDocument: { uri: doc.uri },
				range: { start: { line: 4, character: 0 }, end: { line: 6, character: 1 } },
				context: { diagnostics: [] },
			}),
		);
		if (check(!ca.error && Array.isArray(ca.result), 'E2 codeAction on a range answers a list', ca.error ? describeError(ca.error) : ca.result)) {
			const cmds = ca.result.map((a) => (typeof a.command === 'string' ? a : a.command)).filter(Boolean);
			const byName = Object.fromEntries(cmds.map((c) => [c.command, c]));
			for (const name of ['agentls.plan', 'agentls.review', 'agentls.execute']) {
				const c = byName[name];
				check(c && c.title.startsWith('agentls:'), `E2 code action for ${name} titled "agentls: …"`, cmds);
				const arg = c?.arguments?.[0];
				check(arg && sameFile(arg.uri, doc.uri) && arg.range, `E2 code action ${name} carries uri and range`, arg);
				if (name !== 'agentls.review') check(arg && !arg.instruction, `E2 code action ${name} leaves the instruction to the client`, arg);
			}
		}

		const res = await settle(s.execute('agentls.execute', [commandArg(doc, 'Capitalize the greeting.')]));
		if (!check(!res.error, 'E3 agentls.execute answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'execute');
		check(r.status === 'done', 'E3 execute status done', r.status);
		check(r.edits?.proposed === 1 && r.edits?.applied === 1 && r.edits?.rejected === 0, 'E6 edits {proposed:1, applied:1, rejected:0}', r.edits);
		check(s.applyEdits.length === 1, 'E6 exactly one workspace/applyEdit', s.applyEdits.length);
		if (s.applyEdits.length > 0) checkApplyEditShape(s, s.applyEdits[0], 1);
		check(doc.text === before.replace('"hello, "', '"Hello, "'), 'E6 edit applied to the open document', doc.text);
		check(s.saveRequests.length >= 1, 'agentls/saveDocuments requested after the applied edit', s.saveRequests);
		check(s.saveRequests.some((p) => (p.uris ?? []).some((u) => sameFile(u, doc.uri))), 'agentls/saveDocuments lists main.go', s.saveRequests);
		check(readFileSync(doc.file, 'utf8') === doc.text, 'edit is on disk after saveDocuments', readFileSync(doc.file, 'utf8'));
		check(s.showMessageRequests.every((p) => Array.isArray(p.actions) && p.actions.length > 0), 'E7 every showMessageRequest offers actions', s.showMessageRequests);
		checkProgress(s, 'execute');
	},

	// session: a plan, then "execute this plan" (agentls.execute with the
	// plan's sessionId and no instruction), then agentls.revert restores the
	// file through workspace/applyEdit (A16).
	async session(s) {
		const doc = s.open(MAIN_GO);
		const before = doc.text;
		const plan = await settle(s.execute('agentls.plan', [commandArg(doc, 'Plan capitalizing the greeting.')]));
		if (!check(!plan.error, 'A16 plan answers a result', plan.error && describeError(plan.error))) return;
		const p = plan.result;
		checkResultShape(p, 'session plan');
		check(/^[0-9a-f]{12}$/.test(p.sessionId) && p.runId === `${p.sessionId}-1`, 'A16 the plan starts a session (sessionId, runId)', p);
		const arg = { uri: doc.uri, sessionId: p.sessionId };
		const exec = await settle(s.execute('agentls.execute', [arg]));
		if (!check(!exec.error, 'A16 execute with the plan\'s sessionId and no instruction answers a result', exec.error && describeError(exec.error))) return;
		const r = exec.result;
		checkResultShape(r, 'session execute');
		check(r.sessionId === p.sessionId && r.runId === `${p.sessionId}-2`, 'A16 the execute continues the plan\'s session', r);
		check(r.edits?.applied === 1, 'A16 the plan\'s edit was applied', r.edits);
		const after = before.replace('"hello, "', '"Hello, "');
		check(readFileSync(doc.file, 'utf8') === after, 'A16 the edit is on disk', readFileSync(doc.file, 'utf8'));
		const edits = s.applyEdits.length;
		const rev = await settle(s.conn.sendRequest(ExecuteCommandRequest.type, { command: 'agentls.revert', arguments: [{ runId: r.runId }] }));
		if (!check(!rev.error, 'A16 agentls.revert answers a result', rev.error && describeError(rev.error))) return;
		const v = rev.result;
		log(`revert: ${JSON.stringify(v)}`);
		check(v.reverted === r.runId && v.runId === `${p.sessionId}-3`, 'A16 the revert is a run of the session', v);
		check(Array.isArray(v.restored) && v.restored.length === 1 && v.restored[0] === MAIN_GO, 'A16 revert restored main.go', v);
		check(Array.isArray(v.stale) && v.stale.length === 0 && Array.isArray(v.failed) && v.failed.length === 0, 'A16 nothing stale or failed', v);
		check(s.applyEdits.length === edits + 1, 'A16 the revert went through one workspace/applyEdit', s.applyEdits.length - edits);
		check(doc.text === before, 'A16 the document is back', doc.text);
		check(readFileSync(doc.file, 'utf8') === before, 'A16 the file is back on disk', readFileSync(doc.file, 'utf8'));
	},

	// execute-rejected: the user rejects the edit (E6: approval_denied to the model).
	async 'execute-rejected'(s) {
		const doc = s.open(MAIN_GO);
		const before = doc.text;
		s.onApplyEdit = () => ({ applied: false, failureReason: 'Rejected by the user' });
		const res = await settle(s.execute('agentls.execute', [commandArg(doc, 'Capitalize the greeting.')]));
		if (!check(!res.error, 'E3 agentls.execute answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'execute-rejected');
		check(r.status === 'done', 'E6 run ends normally after a rejected edit', r.status);
		check(r.edits?.proposed === 1 && r.edits?.applied === 0 && r.edits?.rejected === 1, 'E6 edits {proposed:1, applied:0, rejected:1}', r.edits);
		check(s.applyEdits.length === 1, 'E6 exactly one workspace/applyEdit', s.applyEdits.length);
		check(doc.text === before, 'document unchanged', doc.text);
		check(readFileSync(doc.file, 'utf8') === before, 'file on disk unchanged');
		check(s.saveRequests.length === 0, 'no saveDocuments after a rejected edit', s.saveRequests);
	},

	// execute-no-save: a client without experimental.agentls.saveDocuments is
	// asked with showMessageRequest to save, and the server waits for didSave.
	async 'execute-no-save'(s) {
		const doc = s.open(MAIN_GO);
		const before = doc.text;
		s.chooseAction = (p) => {
			const saved = p.actions?.find((a) => a.title === 'I saved them');
			if (!saved) return p.actions?.find((a) => a.title === 'Approve') ?? null;
			// Save like a user would: write the buffer, then didSave.
			writeFileSync(doc.file, doc.text);
			s.conn.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: doc.uri }, text: doc.text });
			return saved;
		};
		const res = await settle(s.execute('agentls.execute', [commandArg(doc, 'Capitalize the greeting.')]));
		if (!check(!res.error, 'E3 agentls.execute answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'execute-no-save');
		check(r.status === 'done', 'E3 execute status done', r.status);
		check(r.edits?.applied === 1, 'E6 edit applied', r.edits);
		check(s.saveRequests.length === 0, 'no agentls/saveDocuments without the experimental capability', s.saveRequests);
		const asked = s.showMessageRequests.find((p) => (p.actions ?? []).some((a) => a.title === 'I saved them'));
		check(!!asked, 'asked with showMessageRequest to save the changed buffer', s.showMessageRequests);
		check(doc.text === before.replace('"hello, "', '"Hello, "'), 'E6 edit applied to the open document', doc.text);
		check(readFileSync(doc.file, 'utf8') === doc.text, 'edit is on disk after the user saved');
	},

	// execute-overlay: the agent works on the unsaved buffer, not the disk
	// (E9), and an edit on top of the user's unsaved change is not saved
	// behind their back.
	async 'execute-overlay'(s) {
		const doc = s.open(MAIN_GO);
		const onDisk = doc.text;
		// The user types without saving: "hello, " becomes "hey, " (version 2).
		const line = 5;
		const col = doc.text.split('\n')[line].indexOf('hello');
		const edit = { range: { start: { line, character: col }, end: { line, character: col + 'hello'.length } }, newText: 'hey' };
		doc.text = applyTextEdits(doc.text, [edit]).text;
		doc.version = 2;
		await s.conn.sendNotification(DidChangeTextDocumentNotification.type, {
			textDocument: { uri: doc.uri, version: doc.version },
			contentChanges: [{ range: edit.range, text: edit.newText }],
		});
		const res = await settle(s.execute('agentls.execute', [commandArg(doc, 'Capitalize the greeting.')]));
		if (!check(!res.error, 'E3 agentls.execute answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'execute-overlay');
		check(r.status === 'done', 'E3 execute status done', r.status);
		check(r.edits?.proposed === 1 && r.edits?.applied === 1, 'E9 the edit of the unsaved text was proposed and applied', r.edits);
		if (check(s.applyEdits.length === 1, 'E6 exactly one workspace/applyEdit', s.applyEdits.length)) {
			const tde = s.applyEdits[0].edit?.documentChanges?.[0];
			check(tde?.textDocument?.version === 2, 'E9 the edit is for the buffer version the user has (2)', tde?.textDocument);
		}
		check(doc.text.includes('"Hey, "'), 'E9 edit applied on top of the unsaved change', doc.text);
		check(s.saveRequests.length === 0, 'the user\'s unsaved edit is not saved behind their back', s.saveRequests);
		check(readFileSync(doc.file, 'utf8') === onDisk, 'file on disk unchanged');
	},

	// review: findings come back in the result and as diagnostics (E5).
	async review(s) {
		const doc = s.open(MAIN_GO);
		const before = doc.text;
		const res = await settle(s.execute('agentls.review', [commandArg(doc)]));
		if (!check(!res.error, 'E3 agentls.review (no instruction) answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'review');
		check(r.status === 'done', 'E3 review status done', r.status);
		const f = r.findings?.[0];
		check(r.findings?.length === 1, 'E5 one finding in the result', r.findings);
		if (f) {
			check(typeof f.path === 'string' && f.path.endsWith(MAIN_GO), 'E5 finding.path is main.go', f);
			check(f.line === 6, 'E5 finding.line is 6 (1-based, as reported)', f);
			check(f.severity === 'warning', 'E5 finding.severity is warning', f);
			check(typeof f.message === 'string' && f.message.includes('empty name'), 'E5 finding.message', f);
		}
		const diags = await waitFor(() => {
			for (const [uri, d] of s.diagnostics) if (sameFile(uri, doc.uri) && d.length > 0) return d;
			return undefined;
		}, 3000);
		if (check(diags && diags.length === 1, 'E5 publishDiagnostics for main.go with one diagnostic', [...s.diagnostics])) {
			const d = diags[0];
			check(d.source === 'agentls', 'E5 diagnostic source is agentls', d);
			check(d.range?.start?.line === 5, 'E5 diagnostic on line index 5 (line 6)', d.range);
			check(d.severity === 2, 'E5 diagnostic severity Warning (2)', d.severity);
			check(typeof d.message === 'string' && d.message.includes('empty name'), 'E5 diagnostic message', d);
		}
		check(s.applyEdits.length === 0, 'E5 review proposes no edits', s.applyEdits);
		check(doc.text === before && readFileSync(doc.file, 'utf8') === before, 'review changes nothing');
	},

	// cancel-request: $/cancelRequest on the executeCommand while the model is slow (E8).
	async 'cancel-request'(s) {
		const doc = s.open(MAIN_GO);
		const cts = new CancellationTokenSource();
		const started = Date.now();
		const pending = settle(s.execute('agentls.execute', [commandArg(doc, 'Capitalize the greeting.')], cts.token));
		await waitFor(() => s.progress.some((p) => p.value?.kind === 'begin'), 3000);
		await sleep(300);
		const cancelAt = Date.now();
		cts.cancel();
		const res = await Promise.race([pending, sleep(4000).then(() => ({ timeout: true }))]);
		const took = Date.now() - cancelAt;
		if (!check(!res.timeout, 'E8 cancelled request answers within 4 s', `still running ${Date.now() - started} ms after start`)) return;
		log(`answered ${took} ms after $/cancelRequest: ${res.error ? describeError(res.error) : JSON.stringify(res.result)}`);
		checkCancelled(res, 'E8 $/cancelRequest');
		check(took < 2500, 'E8 cancellation is prompt (< 2.5 s, the model delays 5 s)', `${took} ms`);
		check(s.applyEdits.length === 0, 'no edit proposed by a cancelled run', s.applyEdits);
		await checkStillServing(s, doc);
	},

	// cancel-command: agentls.cancel with no arguments cancels all runs (E8).
	async 'cancel-command'(s) {
		const doc = s.open(MAIN_GO);
		const pending = settle(s.execute('agentls.execute', [commandArg(doc, 'Capitalize the greeting.')]));
		await waitFor(() => s.progress.some((p) => p.value?.kind === 'begin'), 3000);
		await sleep(300);
		const cancelAt = Date.now();
		const c = await settle(s.execute('agentls.cancel'));
		if (check(!c.error, 'E8 agentls.cancel answers', c.error && describeError(c.error))) {
			check(Array.isArray(c.result?.cancelled) && c.result.cancelled.length === 1, 'E8 agentls.cancel reports one cancelled session', c.result);
		}
		const res = await Promise.race([pending, sleep(4000).then(() => ({ timeout: true }))]);
		const took = Date.now() - cancelAt;
		if (!check(!res.timeout, 'E8 cancelled run answers within 4 s')) return;
		log(`answered ${took} ms after agentls.cancel: ${res.error ? describeError(res.error) : JSON.stringify(res.result)}`);
		checkCancelled(res, 'E8 agentls.cancel');
		if (res.result && c.result?.cancelled) {
			check(c.result.cancelled.includes(res.result.sessionId), 'E8 the cancelled list names the run', { cancelled: c.result.cancelled, sessionId: res.result.sessionId });
		}
		check(took < 2500, 'E8 cancellation is prompt (< 2.5 s, the model delays 5 s)', `${took} ms`);
		const again = await settle(s.execute('agentls.cancel'));
		check(!again.error && Array.isArray(again.result?.cancelled) && again.result.cancelled.length === 0, 'E8 agentls.cancel without arguments, nothing running: {cancelled: []}', again.error ? describeError(again.error) : again.result);
		await checkStillServing(s, doc);
	},

	// bad-input: invalid params and unknown methods get the right JSON-RPC errors.
	async 'bad-input'(s) {
		const doc = s.open(MAIN_GO);
		const cases = [
			['agentls.execute without arguments', () => s.execute('agentls.execute')],
			['agentls.execute with arguments []', () => s.execute('agentls.execute', [])],
			['agentls.plan with a uri that is a number', () => s.execute('agentls.plan', [{ uri: 42, instruction: 'x' }])],
			['agentls.execute without an instruction', () => s.execute('agentls.execute', [{ uri: doc.uri }])],
			['agentls.review with an unknown field', () => s.execute('agentls.review', [{ uri: doc.uri, prompt: 'x' }])],
			['agentls.cancel with a sessionId that is not a string', () => s.execute('agentls.cancel', [{ sessionId: 7 }])],
		];
		for (const [what, send] of cases) {
			const r = await settle(send());
			check(r.error instanceof ResponseError && r.error.code === ErrorCodes.InvalidParams, `${what} -> -32602 InvalidParams`, r.error ? describeError(r.error) : r.result);
		}
		const u = await settle(s.conn.sendRequest('agentls/noSuchMethod', {}));
		check(u.error instanceof ResponseError && u.error.code === ErrorCodes.MethodNotFound, 'unknown request method -> -32601 MethodNotFound', u.error ? describeError(u.error) : u.result);
		await s.conn.sendNotification('agentls/noSuchNotification', {});
		check(s.applyEdits.length === 0 && s.progress.length === 0, 'bad input starts no run');
		await checkStillServing(s, doc);
	},
};

// sessionOptions: the client each scenario plays (default: an unknown
// client with our experimental.agentls.saveDocuments).
const sessionOptions = {
	'execute-no-save': { experimentalSave: false },
	// E14: a client without change annotations: asked before any edit.
	'stale-question': { experimentalSave: false, annotations: false },
	// E14: VS Code, which shows annotated edits in its preview and can open
	// documents (window/showDocument).
	'stale-annotated': { clientInfo: { name: 'Visual Studio Code', version: '1.101.0' }, showDocument: true },
	// E14: Sublime Text LSP advertises changeAnnotationSupport but applies
	// annotated edits without asking.
	sublime: { experimentalSave: false, clientInfo: { name: 'Sublime Text LSP', version: '2.3.0' } },
	// E15: VS Code under a user policy that allows every write.
	'control-files': { clientInfo: { name: 'Visual Studio Code', version: '1.101.0' } },
};

// changeOutside changes a file on disk behind the editor: a line added on
// top, so that a proposal's old ranges would land one line off.
function changeOutside(file) {
	const text = '// changed outside the editor\n' + readFileSync(file, 'utf8');
	writeFileSync(file, text);
	return text;
}

// closedArg is the command argument for main.go without opening it.
function closedArg(s, instruction) {
	const uri = pathToFileURL(path.join(s.workspace, MAIN_GO)).href;
	return { uri, range: { start: { line: 4, character: 0 }, end: { line: 6, character: 1 } }, instruction };
}

function isDiffQuestion(p) {
	return typeof p.message === 'string' && p.message.includes('wants to change main.go');
}

Object.assign(scenarios, {
	// stale-question (Done-when 1): main.go is closed and changes on disk
	// while the question with its diff is open; the server withdraws the
	// question, sends no edit and tells the model stale_file (T17, E10).
	async 'stale-question'(s) {
		const file = path.join(s.workspace, MAIN_GO);
		let changed;
		let withdrawn = false;
		s.chooseAction = async (p, token) => {
			const approve = p.actions?.find((a) => a.title === 'Approve') ?? null;
			if (!isDiffQuestion(p)) return approve;
			changed = changeOutside(file);
			withdrawn = !!(await waitFor(() => token.isCancellationRequested, 3000));
			return approve; // the user approves what they saw
		};
		const res = await settle(s.execute('agentls.execute', [closedArg(s, 'Capitalize the greeting.')]));
		if (!check(!res.error, 'E3 agentls.execute answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'stale-question');
		check(s.showMessageRequests.some(isDiffQuestion), 'E6 a client without change annotations is asked with the diff first', s.showMessageRequests);
		check(withdrawn, 'E10 the question is withdrawn ($/cancelRequest) when main.go changes on disk');
		check(s.applyEdits.length === 0, 'T17 no workspace/applyEdit for a file that changed while the question was open', s.applyEdits);
		check(readFileSync(file, 'utf8') === changed, 'T17 main.go holds the outside change, not corrupted', readFileSync(file, 'utf8'));
		check(r.edits?.proposed === 1 && r.edits?.stale === 1 && r.edits?.applied === 0 && r.edits?.rejected === 0, 'T17 edits {proposed:1, stale:1, applied:0, rejected:0}', r.edits);
	},

	// stale-annotated (Done-when 2): VS Code holds the annotated edit in its
	// preview while main.go (closed) changes on disk; the server opened the
	// file first (window/showDocument) so the edit is versioned, the editor
	// reloads the file and refuses the stale version, and the model is told
	// stale_file (E14, T17).
	async 'stale-annotated'(s) {
		const file = path.join(s.workspace, MAIN_GO);
		let changed;
		s.onApplyEdit = async (p) => {
			changed = changeOutside(file); // while the user looks at the preview
			const doc = s.findDoc(p.edit?.documentChanges?.[0]?.textDocument?.uri ?? '');
			if (doc) await s.reload(doc);
			return s.applyAndAccept(p); // the user accepts; the editor checks the version
		};
		const res = await settle(s.execute('agentls.execute', [closedArg(s, 'Capitalize the greeting.')]));
		if (!check(!res.error, 'E3 agentls.execute answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'stale-annotated');
		const shown = s.showDocuments[0];
		check(s.showDocuments.length === 1 && sameFile(shown.uri, pathToFileURL(file).href), 'E14 main.go opened with window/showDocument first', s.showDocuments);
		check(shown?.takeFocus === false, 'E14 showDocument does not take focus', shown);
		if (check(s.applyEdits.length === 1, 'E6 exactly one workspace/applyEdit', s.applyEdits.length)) {
			const p = s.applyEdits[0];
			check(shown && shown.seq < p.seq, 'E14 showDocument before applyEdit', { shown: shown?.seq, apply: p.seq });
			const tde = p.edit?.documentChanges?.[0];
			check(tde?.textDocument?.version === 1, 'E14 the edit of the closed file is versioned (1, as opened)', tde?.textDocument);
			const anns = Object.values(p.edit?.changeAnnotations ?? {});
			check(anns.length > 0 && anns.every((a) => a.needsConfirmation === true), 'E14 VS Code gets annotations that need confirmation', p.edit?.changeAnnotations);
		}
		check(!s.showMessageRequests.some(isDiffQuestion), 'E14 VS Code is not asked twice (its preview asks)', s.showMessageRequests);
		check(readFileSync(file, 'utf8') === changed, 'T17 main.go holds the outside change, not corrupted', readFileSync(file, 'utf8'));
		check(s.findDoc(pathToFileURL(file).href)?.text === changed, 'T17 the buffer holds the outside change', s.findDoc(pathToFileURL(file).href)?.text);
		check(r.edits?.proposed === 1 && r.edits?.stale === 1 && r.edits?.applied === 0, 'T17 edits {proposed:1, stale:1, applied:0}', r.edits);
	},

	// sublime (Done-when 3): a client named "Sublime Text LSP" that
	// advertises changeAnnotationSupport is asked with the diff before any
	// applyEdit, and the edit it then gets needs no second confirmation.
	async sublime(s) {
		const doc = s.open(MAIN_GO);
		const before = doc.text;
		const res = await settle(s.execute('agentls.execute', [commandArg(doc, 'Capitalize the greeting.')]));
		if (!check(!res.error, 'E3 agentls.execute answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'sublime');
		const ask = s.showMessageRequests.find(isDiffQuestion);
		check(!!ask, 'E14 Sublime Text LSP is asked with window/showMessageRequest', s.showMessageRequests);
		check(ask?.message.includes('+\treturn "Hello, " + name'), 'E14 the question shows the diff', ask?.message);
		if (check(s.applyEdits.length === 1, 'E6 exactly one workspace/applyEdit', s.applyEdits.length)) {
			const p = s.applyEdits[0];
			check(ask && ask.seq < p.seq, 'E14 asked before any applyEdit', { ask: ask?.seq, apply: p.seq });
			const anns = Object.values(p.edit?.changeAnnotations ?? {});
			check(anns.every((a) => a.needsConfirmation !== true), 'E14 the approved edit needs no second confirmation', p.edit?.changeAnnotations);
		}
		check(doc.text === before.replace('"hello, "', '"Hello, "'), 'E6 edit applied after the approval', doc.text);
		check(r.edits?.proposed === 1 && r.edits?.applied === 1, 'E6 edits {proposed:1, applied:1}', r.edits);
	},

	// control-files (#11 Done-when 4): under a user policy that allows
	// every write, notes.txt is written without a question, the editor
	// settings .vscode/settings.json only after a question with a warning
	// (which the user declines here), and agentls' own .agentls/policy.json
	// is refused outright: no question, no edit (E15).
	async 'control-files'(s) {
		const cfg = path.join(process.env.XDG_CONFIG_HOME, 'agentls');
		mkdirSync(cfg, { recursive: true });
		writeFileSync(path.join(cfg, 'policy.json'), JSON.stringify({ allow: ['write_file(**)', 'edit_file(**)'] }));
		// The files exist (this client cannot create files): the model edits them.
		const files = { 'notes.txt': 'notes\n', '.vscode/settings.json': '{}\n', '.agentls/policy.json': '{}\n' };
		for (const [rel, text] of Object.entries(files)) {
			mkdirSync(path.dirname(path.join(s.workspace, rel)), { recursive: true });
			writeFileSync(path.join(s.workspace, rel), text);
		}
		s.chooseAction = (p) => (p.message?.includes('.vscode/settings.json') ? p.actions?.find((a) => a.title === 'Deny') ?? null : p.actions?.find((a) => a.title === 'Approve') ?? null);
		const doc = s.open(MAIN_GO);
		const res = await settle(s.execute('agentls.execute', [commandArg(doc, 'Set the project up.')]));
		if (!check(!res.error, 'E3 agentls.execute answers a result', res.error && describeError(res.error))) return;
		const r = res.result;
		log(`result: ${JSON.stringify(r)}`);
		checkResultShape(r, 'control-files');
		const touches = (p, name) => JSON.stringify(p.edit ?? {}).includes(name);
		const notes = s.applyEdits.filter((p) => touches(p, 'notes.txt'));
		check(notes.length === 1, 'E15 notes.txt is proposed once', s.applyEdits.length);
		check(notes.every((p) => Object.values(p.edit?.changeAnnotations ?? {}).every((a) => a.needsConfirmation !== true)), 'E15 notes.txt needs no confirmation under the allow-all policy', notes[0]?.edit?.changeAnnotations);
		check(!s.showMessageRequests.some((q) => q.message?.includes('notes.txt')), 'E15 no question about notes.txt', s.showMessageRequests);
		const warn = s.showMessageRequests.find((q) => q.message?.includes('.vscode/settings.json'));
		check(!!warn && warn.message.includes('WARNING'), 'E15 .vscode/settings.json is asked with a warning', s.showMessageRequests);
		check(!!warn && !(warn.actions ?? []).some((a) => /always/i.test(a.title)), 'E15 the question offers no "always"', warn?.actions);
		check(!s.applyEdits.some((p) => touches(p, '.vscode/settings.json')), 'E15 the declined settings change is never sent', s.applyEdits.length);
		check(!s.applyEdits.some((p) => touches(p, '.agentls')) && !s.showMessageRequests.some((q) => q.message?.includes('.agentls')), 'E15 .agentls/policy.json: no edit and no question', s.showMessageRequests);
		check(readFileSync(path.join(s.workspace, '.vscode', 'settings.json'), 'utf8') === '{}\n' && readFileSync(path.join(s.workspace, '.agentls', 'policy.json'), 'utf8') === '{}\n', 'E15 neither control file changed on disk');
		const steps = r.steps ?? [];
		check(steps.some((st) => st.code === 'protected_path'), 'E15 the model is told protected_path', steps);
	},
});

function checkCancelled(res, what) {
	if (res.error) {
		check(res.error instanceof ResponseError && res.error.code === LSPErrorCodes.RequestCancelled, `${what}: error is -32800 RequestCancelled`, describeError(res.error));
	} else {
		checkResultShape(res.result, what);
		check(res.result.status === 'cancelled', `${what}: status cancelled`, res.result);
	}
}

// checkStillServing: after errors and cancellations the server still answers.
async function checkStillServing(s, doc) {
	const r = await settle(
		s.conn.sendRequest(CodeActionRequest.type, {
			textDocument: { uri: doc.uri },
			range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } },
			context: { diagnostics: [] },
		}),
	);
	check(!r.error, 'server still answers requests afterwards', r.error && describeError(r.error));
}

// ---------------------------------------------------------------------------

async function main() {
	const run = scenarios[opts.scenario];
	if (!run) {
		console.error(`unknown scenario ${opts.scenario}; known: ${Object.keys(scenarios).join(', ')}`);
		process.exit(2);
	}
	const s = new Session(sessionOptions[opts.scenario] ?? {});
	const timer = setTimeout(() => {
		log(`FAIL scenario ${opts.scenario} timed out after ${opts.timeout} ms`);
		s.dumpStderr();
		s.child?.kill('SIGKILL');
		process.exit(2);
	}, Number(opts.timeout));
	s.start();
	try {
		await s.initialize();
		await run(s);
		await s.shutdown();
	} catch (e) {
		failed++;
		log(`FAIL scenario ${opts.scenario} threw: ${describeError(e)}`);
		s.child?.kill('SIGKILL');
	}
	clearTimeout(timer);
	if (s.otherRequests.length) log(`other server requests: ${s.otherRequests.map((r) => r.method).join(', ')}`);
	if (failed > 0 || opts.verbose) s.dumpStderr();
	log(`scenario ${opts.scenario}: ${passed} checks ok, ${failed} failed`);
	process.exit(failed > 0 ? 1 : 0);
}

main();
