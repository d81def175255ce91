// agentls for VS Code (DESIGN.md E12): starts `agentls serve` with
// vscode-languageclient and puts plan / review / execute on the command
// palette and the editor context menu.
//
// The four agentls.* commands are the server's own: the language client
// registers them from executeCommandProvider, and the middleware below fills
// in what the server needs — the document and selection, and the
// instruction, asked with an input box when a palette entry, the context menu
// or a code action left it out. Every run belongs to a session: after a plan,
// "Execute This Plan" continues its session with an execute and no
// instruction (the server then carries out the plan above), "Follow Up…"
// continues it with a new instruction, and after an execute "Revert" undoes
// what the run changed (agentls.revert). Edits arrive as workspace/applyEdit with
// change annotations that need confirmation, so VS Code shows its refactor
// preview before anything changes; what the user leaves out they may say why
// about, and a discarded change they may edit and accept (review.ts: the
// answers go back in the reply's "agentls" member, issue 28);
// agentls/saveDocuments then saves them. The instruction box can attach
// pictures of the workspace to a run (images, issue 25).
// While a run goes on, agentls/runEvent fills its output channel, shown as
// the run begins, and the one status item (runs.ts). The server's questions
// (window/showMessageRequest) are modal dialogs, so they stay in view until
// answered (E18), with the safe answer (Deny) as the dialog's close
// affordance; the status item says a question waits. The server's log
// lines keep their levels in the agentls log channel.
//
// Settings a cloned repository could abuse (endpoint, serverPath,
// policyFile) have machine scope: a workspace's .vscode/settings.json cannot
// set them. The API key lives in VS Code's SecretStorage ("agentls: Set API
// Key") and reaches the server only as OPENAI_API_KEY in its environment.

import * as vscode from 'vscode';
import {
	ApplyWorkspaceEditResult,
	CancellationToken,
	ClientCapabilities,
	ExecuteCommandRequest,
	ExecuteCommandSignature,
	FeatureState,
	LanguageClient,
	LanguageClientOptions,
	MessageActionItem,
	MessageType,
	ResponseError,
	ServerOptions,
	ShowMessageRequest,
	ShowMessageRequestParams,
	StaticFeature,
} from 'vscode-languageclient/node';
import * as readline from 'node:readline';
import type { Readable } from 'node:stream';

// The wire shapes, generated from the server's Go package lspserver/command.
import * as protocol from './protocol';
import { review, HunkFiles, HUNK_SCHEME } from './review';
import { editsText, firstLine, Run, Runs, stepText, visible } from './runs';
import { showSessions } from './sessions';

const RUN_COMMANDS = new Set<string>([protocol.Plan, protocol.Review, protocol.Execute]);
const NEEDS_INSTRUCTION = new Set<string>([protocol.Plan, protocol.Execute]);

/** The SecretStorage key of the API key. */
const API_KEY_SECRET = 'agentls.apiKey';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let runs: Runs;
let secrets: vscode.SecretStorage;
/** The documents in which the user edits a proposed hunk before accepting it (review.ts). */
const hunkFiles = new HunkFiles();

/** The last run: its command, argument and result, for "execute this plan" and follow-ups. */
let last: { command: string; arg: protocol.Args; result: protocol.Result } | undefined;

/**
 * Announces experimental.agentls: saveDocuments (the server then asks us to save after an applied edit),
 * editText (human_confirm "modify": the user edits the text the model proposed) and runEvents (the live run view).
 * It withdraws window.workDoneProgress, which the language client announces: the client would show a run's
 * $/progress as a second status item beside the run's own (issue 24), which runEvents already feed.
 */
class AgentlsFeature implements StaticFeature {
	fillClientCapabilities(capabilities: ClientCapabilities): void {
		const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
		const agentls: protocol.ClientCapabilities = { saveDocuments: true, editText: true, runEvents: true };
		capabilities.experimental = { ...experimental, agentls };
		if (capabilities.window) capabilities.window.workDoneProgress = false;
	}
	initialize(): void {}
	getState(): FeatureState {
		return { kind: 'static' };
	}
	clear(): void {}
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
	output = vscode.window.createOutputChannel('agentls', { log: true });
	secrets = context.secrets;
	runs = new Runs(context.storageUri ?? context.globalStorageUri);
	context.subscriptions.push(
		output,
		runs,
		vscode.workspace.registerFileSystemProvider(HUNK_SCHEME, hunkFiles, { isCaseSensitive: true }),
		vscode.commands.registerCommand('agentls.restart', () => restart()),
		vscode.commands.registerCommand('agentls.executePlan', () => continueLast(protocol.Execute, '')),
		vscode.commands.registerCommand('agentls.followUp', () => continueLast(undefined, undefined)),
		vscode.commands.registerCommand('agentls.setApiKey', () => setApiKey()),
		vscode.commands.registerCommand('agentls.showRun', () => runs.show()),
		vscode.commands.registerCommand('agentls.why', () => runs.why()),
		vscode.commands.registerCommand('agentls.useHunkText', async () => {
			// Ctrl+S in a hunk's document (issue 28): save it, and its text is the answer, also when an
			// auto-save had already saved it.
			const doc = vscode.window.activeTextEditor?.document;
			if (!doc || doc.uri.scheme !== HUNK_SCHEME) return vscode.commands.executeCommand('workbench.action.files.save');
			if (doc.isDirty) await doc.save();
			if (!hunkFiles.use(doc.uri, doc.getText())) void vscode.window.showWarningMessage('agentls: this hunk is no longer being reviewed.');
		}),
		vscode.commands.registerCommand('agentls.openPlan', () => openPlan()),
		vscode.commands.registerCommand('agentls.sessions', () =>
			showSessions({
				serverPath: () => vscode.workspace.getConfiguration('agentls').get<string>('serverPath') || 'agentls',
				continueSession,
				revertRun: async (runId) => vscode.commands.executeCommand(protocol.Revert, { runId }),
			}),
		),
		vscode.workspace.onDidChangeConfiguration(async (e) => {
			if (!e.affectsConfiguration('agentls')) return;
			const pick = await vscode.window.showInformationMessage('agentls settings changed.', 'Restart Server');
			if (pick) await restart();
		}),
		{ dispose: () => void client?.stop() },
	);
	await restart();
}

export async function deactivate(): Promise<void> {
	await client?.stop();
	client = undefined;
}

/** restarts are serialized: activation, a settings change and a new API key may overlap. */
let restarting: Promise<void> = Promise.resolve();

function restart(): Promise<void> {
	restarting = restarting.then(restartNow, restartNow);
	return restarting;
}

async function restartNow(): Promise<void> {
	runs.starting();
	if (client) {
		await client.stop().catch(() => undefined);
		client = undefined;
	}
	const apiKey = await secrets.get(API_KEY_SECRET);
	const c = new LanguageClient('agentls', 'agentls', serverOptions(apiKey), clientOptions());
	c.registerFeature(new AgentlsFeature());
	c.onRequest(protocol.MethodSaveDocuments, (params: protocol.SaveDocumentsParams) => saveDocuments(c, params));
	c.onRequest(protocol.MethodEditText, (params: protocol.EditTextParams) => editText(params));
	c.onNotification(protocol.MethodRunEvent, (e: protocol.RunEvent) => runs.event(e));
	c.onRequest(ShowMessageRequest.type, (params, token) => ask(params, token));
	client = c;
	try {
		await c.start();
		runs.ready();
	} catch (e) {
		const path = vscode.workspace.getConfiguration('agentls').get<string>('serverPath') || 'agentls';
		runs.ready(`cannot start "${path} serve"`);
		void vscode.window.showErrorMessage(`agentls: cannot start "${path} serve": ${String(e)}. Check the agentls.serverPath setting.`);
	}
}

/** setApiKey stores the key in SecretStorage (never in settings); an empty answer removes it. */
async function setApiKey(): Promise<void> {
	const key = await vscode.window.showInputBox({
		title: 'agentls: API key',
		prompt: 'The key for the OpenAI-compatible endpoint, kept in VS Code\'s secret storage. Empty: remove it.',
		password: true,
		ignoreFocusOut: true,
	});
	if (key === undefined) return;
	if (key.trim()) await secrets.store(API_KEY_SECRET, key.trim());
	else await secrets.delete(API_KEY_SECRET);
	await restart(); // the key is in the server's environment only
	void vscode.window.showInformationMessage(key.trim() ? 'agentls: API key stored; the server restarted with it.' : 'agentls: API key removed; the server restarted.');
}

/** openPlan reopens a saved plan. */
async function openPlan(): Promise<void> {
	const plans = await runs.plans();
	if (!plans.length) {
		void vscode.window.showInformationMessage('agentls: no saved plan yet; run agentls: Plan… first.');
		return;
	}
	const pick = await vscode.window.showQuickPick(
		plans.map((uri) => ({ label: uri.path.split('/').pop() ?? uri.path, uri })),
		{ title: 'agentls: saved plans, newest first' },
	);
	if (pick) await vscode.window.showTextDocument(pick.uri, { preview: false });
}

function serverOptions(apiKey: string | undefined): ServerOptions {
	const cfg = vscode.workspace.getConfiguration('agentls');
	const env: NodeJS.ProcessEnv = { ...process.env };
	if (apiKey) env.OPENAI_API_KEY = apiKey;
	const model = cfg.get<string>('model');
	const endpoint = cfg.get<string>('endpoint');
	const policyFile = cfg.get<string>('policyFile');
	if (model) env.AGENTLS_MODEL = model;
	if (endpoint) env.OPENAI_BASE_URL = endpoint;
	if (policyFile) env.AGENTLS_POLICY = policyFile;
	const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
	return {
		command: cfg.get<string>('serverPath') || 'agentls',
		args: ['serve'],
		// No transport: with TransportKind.stdio the client would append
		// --stdio; without one it talks over the child's stdin/stdout all
		// the same (#13).
		options: { env, cwd: folder },
	};
}

function clientOptions(): LanguageClientOptions {
	return {
		documentSelector: [{ scheme: 'file' }],
		outputChannel: output,
		stdioOptions: { stdout: logLines, stderr: logLines },
		middleware: {
			executeCommand,
			workspace: {
				// The run view opens as the run begins; VS Code shows it a moment later, in the panel the Refactor
				// Preview shares. An edit proposed within that moment would open the preview under the run view,
				// out of sight: wait until the run view is up (at most RUN_VIEW_SETTLES after it was asked for).
				// Then the review asks why for what the user rejected, and lets them edit the proposal (review.ts).
				handleApplyEdit: async (params, next) => {
					await runs.settled();
					return review(params, async (p) => (await next(p, CancellationToken.None)) as ApplyWorkspaceEditResult, hunkFiles);
				},
			},
		},
	};
}

/**
 * logLines writes the server's log lines (slog's text format: `time=… level=INFO msg=…`) to the log channel
 * at their own level, without the time the channel adds itself; a line without a level (a panic, a plain
 * warning) is an error unless it says it is a warning.
 */
function logLines(input: Readable, channel: vscode.LogOutputChannel): void {
	readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', (line: string) => {
		const m = /^(?:time=\S+ )?level=(DEBUG|INFO|WARN|ERROR)(?:[+-]\d+)? (.*)$/.exec(line);
		const level = m?.[1] ?? (/\bwarning\b/i.test(line) ? 'WARN' : 'ERROR');
		const text = m?.[2] ?? line;
		if (level === 'DEBUG') channel.debug(text);
		else if (level === 'INFO') channel.info(text);
		else if (level === 'WARN') channel.warn(text);
		else channel.error(text);
	});
}

/** SAFE_ACTIONS are the answers that change nothing: the dialog's close affordance (Escape). */
const SAFE_ACTIONS = new Set<string>([protocol.ActionDeny, protocol.ActionNotNow]);

/**
 * ask answers window/showMessageRequest with a modal dialog: it stays until the user answers, where a
 * notification would slide into the notification centre after a few seconds and the question would be
 * denied unseen after the server's timeout (E7, E18). The first line is the question, the rest its detail.
 * Deny (or Not now) is the close affordance, so Escape and closing the dialog pick it; without one, closing
 * answers null, which the server treats as deny. The status item says a question waits meanwhile. When the
 * server gives up on the question (its timeout, a cancelled run), the dialog's answer is ignored there.
 */
async function ask(params: ShowMessageRequestParams, token: vscode.CancellationToken): Promise<MessageActionItem | null> {
	const [message, ...rest] = params.message.split('\n');
	const detail = rest.join('\n').trim() || undefined;
	const actions = params.actions ?? [];
	const safe = actions.find((a) => SAFE_ACTIONS.has(a.title));
	const items = actions.map((a) => ({ title: a.title, isCloseAffordance: a === safe, action: a }));
	const show =
		params.type === MessageType.Error
			? vscode.window.showErrorMessage
			: params.type === MessageType.Warning
				? vscode.window.showWarningMessage
				: vscode.window.showInformationMessage;
	const answered = runs.asking();
	const gone = token.onCancellationRequested(() => {
		answered();
		output.warn(`the server stopped waiting for the answer to: ${message}`);
	});
	try {
		const pick = await show(message, { modal: true, detail }, ...items);
		return pick?.action ?? null;
	} finally {
		gone.dispose();
		answered();
	}
}

/** Middleware for the server's commands: complete the argument, run, show the result. */
async function executeCommand(command: string, args: unknown[], next: ExecuteCommandSignature): Promise<unknown> {
	if (command === protocol.Cancel) {
		const one = args.filter(isSessionArg);
		const res = (await next(command, one)) as protocol.CancelResult | undefined;
		if (!one.length) runs.abandonUnstarted(); // runs the server has not named yet
		void vscode.window.showInformationMessage(`agentls: cancelled ${res?.cancelled?.length ?? 0} run(s).`);
		return res;
	}
	if (command === protocol.Revert) return revert(args, next);
	if (!RUN_COMMANDS.has(command) || !client) return next(command, args);

	const arg = commandArg(client, args);
	if (!arg) {
		void vscode.window.showErrorMessage('agentls: open a file in the workspace first.');
		return undefined;
	}
	const name = command.replace(/^agentls\./, '');
	// An execute that continues a session needs no instruction: it carries out the plan above.
	const executesPlan = command === protocol.Execute && !!arg.sessionId;
	if (NEEDS_INSTRUCTION.has(command) && !arg.instruction?.trim() && !executesPlan) {
		const asked = await askInstruction(
			`agentls ${name}`,
			command === protocol.Plan ? 'What should be planned? (read-only)' : 'What should be changed? Every edit is shown for approval.',
		);
		if (!asked?.instruction.trim()) return undefined;
		arg.instruction = asked.instruction.trim();
		if (asked.images.length) arg.images = asked.images.map((u) => client!.code2ProtocolConverter.asUri(u));
	}
	const c = client;
	const target = vscode.workspace.asRelativePath(c.protocol2CodeConverter.asUri(arg.uri));
	const run = runs.begin(name, target + (arg.range ? `:${arg.range.start.line + 1}-${arg.range.end.line + 1}` : ''), arg.instruction ?? '');
	// No progress notification: VS Code would add a second status item for it; the run's own item shows
	// what it does (click: cancel), and its run view is open.
	const abandon = new vscode.CancellationTokenSource();
	run.cancelRequest = () => abandon.cancel();
	try {
		const result = (await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] }, abandon.token)) as protocol.Result;
		runs.finish(run, result);
		last = { command, arg: { uri: arg.uri, range: arg.range }, result };
		await showResult(name, run, result, command);
		return result;
	} catch (e) {
		runs.finish(run, undefined, String(e));
		showError(name, e);
		return undefined;
	} finally {
		abandon.dispose();
	}
}

/** At most this many images go with a run (lspserver/images.go). */
const MAX_IMAGES = 4;
const IMAGE_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'webp'];
const ATTACH_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('file-media'), tooltip: 'Attach Images…' };

/**
 * askInstruction asks what a run should do; the box's button "Attach Images…" adds pictures of the workspace
 * (a screenshot of a UI bug, say) that go to the model with the instruction (issue 25, A12). Undefined: the
 * user cancelled (Escape).
 */
function askInstruction(title: string, prompt: string): Promise<{ instruction: string; images: vscode.Uri[] } | undefined> {
	const box = vscode.window.createInputBox();
	box.title = title;
	box.placeholder = 'e.g. handle the empty-name case in greet';
	box.ignoreFocusOut = true;
	box.buttons = [ATTACH_BUTTON];
	let images: vscode.Uri[] = [];
	const showPrompt = () => {
		const names = images.map((u) => visible(vscode.workspace.asRelativePath(u)));
		box.prompt = names.length ? `${prompt} Images: ${names.join(', ')}.` : `${prompt} Pictures for the model: the image button.`;
	};
	showPrompt();
	return new Promise((resolve) => {
		let picking = false;
		let answer: { instruction: string; images: vscode.Uri[] } | undefined;
		box.onDidAccept(() => {
			answer = { instruction: box.value, images };
			box.hide();
		});
		box.onDidTriggerButton(async (b) => {
			if (b !== ATTACH_BUTTON) return;
			picking = true; // the picker takes the box's place for a while
			images = await pickImages(images);
			picking = false;
			showPrompt();
			box.show();
		});
		box.onDidHide(() => {
			if (picking) return;
			box.dispose();
			resolve(answer);
		});
		box.show();
	});
}

/**
 * pickImages chooses the images of a run: the pictures of the workspace, ticked as chosen, or another file
 * through the open dialog (rooted at the workspace). Cancelling keeps what was chosen.
 */
async function pickImages(chosen: vscode.Uri[]): Promise<vscode.Uri[]> {
	const found = await vscode.workspace.findFiles(`**/*.{${IMAGE_EXTENSIONS.join(',')}}`, '**/{node_modules,.git}/**', 200);
	const all = [...chosen, ...found.filter((f) => !chosen.some((c) => c.toString() === f.toString()))];
	let picked: vscode.Uri[] | undefined;
	if (all.length) {
		const browse: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('folder-opened'), tooltip: 'Browse…' };
		const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { uri: vscode.Uri }>();
		qp.title = `agentls: images for the model (at most ${MAX_IMAGES})`;
		qp.placeholder = 'Tick the pictures to send, then Enter';
		qp.canSelectMany = true;
		qp.ignoreFocusOut = true;
		qp.buttons = [browse];
		qp.items = all.map((uri) => ({ label: visible(vscode.workspace.asRelativePath(uri)), uri }));
		qp.selectedItems = qp.items.filter((i) => chosen.some((c) => c.toString() === i.uri.toString()));
		const r = await new Promise<vscode.Uri[] | 'browse' | undefined>((resolve) => {
			let answer: vscode.Uri[] | 'browse' | undefined;
			qp.onDidAccept(() => {
				answer = qp.selectedItems.map((i) => i.uri);
				qp.hide();
			});
			qp.onDidTriggerButton(() => {
				answer = 'browse';
				qp.hide();
			});
			qp.onDidHide(() => {
				qp.dispose();
				resolve(answer);
			});
			qp.show();
		});
		if (r === undefined) return chosen;
		if (r !== 'browse') picked = r;
	}
	if (!picked) {
		const more = await vscode.window.showOpenDialog({
			title: 'agentls: images for the model',
			defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
			canSelectMany: true,
			filters: { Images: IMAGE_EXTENSIONS },
			openLabel: 'Attach',
		});
		if (!more) return chosen;
		picked = [...chosen, ...more.filter((m) => !chosen.some((c) => c.toString() === m.toString()))];
	}
	const outside = picked.filter((u) => !vscode.workspace.getWorkspaceFolder(u) || !IMAGE_EXTENSIONS.includes(u.path.split('.').pop()?.toLowerCase() ?? ''));
	if (outside.length) {
		void vscode.window.showWarningMessage(
			`agentls: only PNG, JPEG, GIF or WebP files in the workspace can go to the model; left out: ${outside.map((u) => visible(u.fsPath)).join(', ')}`,
		);
	}
	let ok = picked.filter((u) => !outside.includes(u));
	if (ok.length > MAX_IMAGES) {
		void vscode.window.showWarningMessage(`agentls: at most ${MAX_IMAGES} images go with a run; the first ${MAX_IMAGES} are kept.`);
		ok = ok.slice(0, MAX_IMAGES);
	}
	return ok;
}

function isSessionArg(a: unknown): boolean {
	return typeof a === 'object' && a !== null && typeof (a as Partial<protocol.CancelArgs>).sessionId === 'string';
}

/**
 * commandArg builds {uri, range?, instruction?}: from a code action's
 * argument when there is one, else from the active editor and its selection
 * (no range when nothing is selected: the whole file).
 */
function commandArg(c: LanguageClient, args: unknown[]): protocol.Args | undefined {
	const given = args.find((a): a is protocol.Args => typeof a === 'object' && a !== null && typeof (a as protocol.Args).uri === 'string');
	if (given) return { ...given };
	const resource = args.find((a): a is vscode.Uri => a instanceof vscode.Uri);
	let editor = vscode.window.activeTextEditor;
	if (resource && editor?.document.uri.toString() !== resource.toString()) {
		editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === resource.toString());
	}
	if (!editor || editor.document.uri.scheme !== 'file') return undefined;
	const arg: protocol.Args = { uri: c.code2ProtocolConverter.asUri(editor.document.uri) };
	if (!editor.selection.isEmpty) arg.range = c.code2ProtocolConverter.asRange(editor.selection);
	return arg;
}

/**
 * continueLast continues the last run's session: with command (the last run's own when undefined) and
 * instruction (asked for when undefined; '' for an execute carries out the plan above).
 */
async function continueLast(command: string | undefined, instruction: string | undefined): Promise<unknown> {
	if (!last) {
		void vscode.window.showInformationMessage('agentls: no run to continue yet; run Plan… first.');
		return undefined;
	}
	const arg: protocol.Args = { ...last.arg, sessionId: last.result.sessionId };
	if (instruction !== undefined) arg.instruction = instruction;
	return vscode.commands.executeCommand(command ?? last.command, arg);
}

/**
 * continueSession runs an execute in an earlier session (the sessions view): on the active file, or the
 * workspace folder, with an instruction; none carries out the plan above.
 */
async function continueSession(sessionId: string): Promise<unknown> {
	if (!client) return undefined;
	const instruction = await vscode.window.showInputBox({
		title: `agentls: continue session ${sessionId}`,
		prompt: 'What next? Empty: carry out the plan above.',
		ignoreFocusOut: true,
	});
	if (instruction === undefined) return undefined;
	const editor = vscode.window.activeTextEditor;
	const target = editor?.document.uri.scheme === 'file' ? editor.document.uri : vscode.workspace.workspaceFolders?.[0]?.uri;
	if (!target) {
		void vscode.window.showErrorMessage('agentls: open a folder first.');
		return undefined;
	}
	const arg: protocol.Args = { uri: client.code2ProtocolConverter.asUri(target), sessionId, instruction: instruction.trim() };
	return vscode.commands.executeCommand(protocol.Execute, arg);
}

/** revert runs agentls.revert (the last run of the last session without an argument) and shows what it did. */
async function revert(args: unknown[], next: ExecuteCommandSignature): Promise<unknown> {
	const arg = args.find((a): a is protocol.RevertArgs => typeof a === 'object' && a !== null && !(a instanceof vscode.Uri));
	try {
		const r = (await next(protocol.Revert, arg ? [arg] : [])) as protocol.RevertResult | undefined;
		if (!r) return r;
		output.info(`revert ${r.reverted} (run ${r.runId}): ${r.restored.length} restored, ${r.stale.length} stale, ${r.failed.length} failed`);
		for (const f of [...r.stale, ...r.failed]) output.appendLine(`  ${f.path}: ${f.reason}`);
		const text = `agentls: reverted ${r.reverted}: ${r.restored.length} file(s) restored`;
		if (r.stale.length || r.failed.length) {
			const left = [...r.stale, ...r.failed].map((f) => f.path).join(', ');
			void vscode.window.showWarningMessage(`${text}; left as they are (changed since): ${left}`, 'Details').then((pick) => pick && output.show(true));
		} else {
			void vscode.window.showInformationMessage(text);
		}
		return r;
	} catch (e) {
		showError('revert', e);
		return undefined;
	}
}

/**
 * showResult tells how the run ended. The edit counts are the server's: it re-reads the document, so an edit
 * applied as nothing (every hunk unticked in the Refactor Preview) counts as rejected, not applied.
 */
async function showResult(name: string, run: Run, r: protocol.Result, command: string): Promise<void> {
	output.info(`${name} ${r.sessionId}: ${r.status}; ${(r.steps ?? []).map(stepText).join('; ')}`);
	// A plan is markdown: the toast shows its first line as plain text; Open Plan opens the whole document.
	const isPlan = name === 'plan' && r.status === 'done' && r.summary.trim() !== '';
	let text = `agentls ${name} ${r.status}: ${isPlan ? firstLine(r.summary) : r.summary}`;
	if (r.findings?.length) text += ` (${r.findings.length} finding(s) in Problems)`;
	if (r.edits.proposed > 0) text += ` — ${editsText(r.edits)}`;
	const actions = ['Show Run'];
	if (command === protocol.Plan && r.status === 'done') actions.push(EXECUTE_PLAN);
	if (r.sessionId) actions.push(FOLLOW_UP);
	if (command === protocol.Execute && r.edits.applied > 0) actions.push(REVERT);
	let plan: vscode.Uri | undefined;
	if (isPlan) {
		plan = await runs.savePlan(run, r);
		actions.unshift('Open Plan');
	}
	const warn = r.status !== 'done' || (r.edits.proposed > 0 && r.edits.applied === 0);
	const show = warn ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
	void show(text, ...actions).then(async (pick) => {
		if (pick === 'Show Run') run.channel.show(true);
		if (pick === EXECUTE_PLAN) await vscode.commands.executeCommand(protocol.Execute, { ...last?.arg, instruction: '', sessionId: r.sessionId });
		if (pick === FOLLOW_UP) await vscode.commands.executeCommand(command, { ...last?.arg, sessionId: r.sessionId });
		if (pick === REVERT) await vscode.commands.executeCommand(protocol.Revert, { runId: r.runId });
		if (pick === 'Open Plan' && plan) await vscode.window.showTextDocument(plan, { preview: false });
	});
}

function showError(name: string, e: unknown): void {
	if (e instanceof ResponseError) {
		const reason = (e.data as { reason?: string } | undefined)?.reason;
		output.error(`${name} failed: ${e.code} ${e.message}${reason ? ` (${reason})` : ''}`);
		void vscode.window.showErrorMessage(`agentls ${name} failed: ${e.message}${reason ? ` (${reason})` : ''}`);
		return;
	}
	void vscode.window.showErrorMessage(`agentls ${name} failed: ${String(e)}`);
}

/** Answers agentls/saveDocuments: save each document the server names (a new file's too: issue 24). */
async function saveDocuments(c: LanguageClient, params: protocol.SaveDocumentsParams): Promise<protocol.SaveDocumentsResult> {
	const saved: string[] = [];
	for (const raw of params?.uris ?? []) {
		const uri = c.protocol2CodeConverter.asUri(raw);
		// A file the edit created may have no document here yet, though its buffer holds the content: open it.
		const doc =
			vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ??
			(await vscode.workspace.openTextDocument(uri).then(
				(d) => d,
				() => undefined,
			));
		if (!doc) continue;
		if (!doc.isDirty || (await doc.save())) saved.push(raw);
	}
	return { saved };
}

/** Answers agentls/editText: an input box prefilled with the proposed text; Escape answers null (deny). */
async function editText(params: protocol.EditTextParams): Promise<protocol.EditTextResult> {
	const text = await vscode.window.showInputBox({ prompt: `agentls: ${params.prompt ?? 'edit the text'}`, value: params.text ?? '' });
	return { text: text ?? null };
}

// The actions offered after a run.
const EXECUTE_PLAN = 'Execute This Plan';
const FOLLOW_UP = 'Follow Up…';
const REVERT = 'Revert';
