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
// preview before anything changes; agentls/saveDocuments then saves them.

import * as vscode from 'vscode';
import {
	ClientCapabilities,
	ExecuteCommandRequest,
	ExecuteCommandSignature,
	FeatureState,
	LanguageClient,
	LanguageClientOptions,
	ResponseError,
	ServerOptions,
	StaticFeature,
	TransportKind,
} from 'vscode-languageclient/node';

// The wire shapes, generated from the server's Go package lspserver/command.
import * as protocol from './protocol';

const RUN_COMMANDS = new Set<string>([protocol.Plan, protocol.Review, protocol.Execute]);
const NEEDS_INSTRUCTION = new Set<string>([protocol.Plan, protocol.Execute]);

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;

/** The last run: its command, argument and result, for "execute this plan" and follow-ups. */
let last: { command: string; arg: protocol.Args; result: protocol.Result } | undefined;

/**
 * Announces experimental.agentls: saveDocuments (the server then asks us to save after an applied edit) and
 * editText (human_confirm "modify": the user edits the text the model proposed).
 */
class SaveDocumentsFeature implements StaticFeature {
	fillClientCapabilities(capabilities: ClientCapabilities): void {
		const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
		const agentls: protocol.ClientCapabilities = { saveDocuments: true, editText: true };
		capabilities.experimental = { ...experimental, agentls };
	}
	initialize(): void {}
	getState(): FeatureState {
		return { kind: 'static' };
	}
	clear(): void {}
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
	output = vscode.window.createOutputChannel('agentls', { log: true });
	context.subscriptions.push(
		output,
		vscode.commands.registerCommand('agentls.restart', () => restart()),
		vscode.commands.registerCommand('agentls.executePlan', () => continueLast(protocol.Execute, '')),
		vscode.commands.registerCommand('agentls.followUp', () => continueLast(undefined, undefined)),
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

async function restart(): Promise<void> {
	if (client) {
		await client.stop().catch(() => undefined);
		client = undefined;
	}
	const c = new LanguageClient('agentls', 'agentls', serverOptions(), clientOptions());
	c.registerFeature(new SaveDocumentsFeature());
	c.onRequest(protocol.MethodSaveDocuments, (params: protocol.SaveDocumentsParams) => saveDocuments(c, params));
	c.onRequest(protocol.MethodEditText, (params: protocol.EditTextParams) => editText(params));
	client = c;
	try {
		await c.start();
	} catch (e) {
		const path = vscode.workspace.getConfiguration('agentls').get<string>('serverPath') || 'agentls';
		void vscode.window.showErrorMessage(`agentls: cannot start "${path} serve": ${String(e)}. Check the agentls.serverPath setting.`);
	}
}

function serverOptions(): ServerOptions {
	const cfg = vscode.workspace.getConfiguration('agentls');
	const env: NodeJS.ProcessEnv = { ...process.env };
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
		transport: TransportKind.stdio,
		options: { env, cwd: folder },
	};
}

function clientOptions(): LanguageClientOptions {
	return {
		documentSelector: [{ scheme: 'file' }],
		outputChannel: output,
		middleware: { executeCommand },
	};
}

/** Middleware for the server's commands: complete the argument, run, show the result. */
async function executeCommand(command: string, args: unknown[], next: ExecuteCommandSignature): Promise<unknown> {
	if (command === protocol.Cancel) {
		const res = (await next(command, args.filter(isSessionArg))) as protocol.CancelResult | undefined;
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
		const instruction = await vscode.window.showInputBox({
			title: `agentls ${name}`,
			prompt: command === protocol.Plan ? 'What should be planned? (read-only)' : 'What should be changed? Every edit is shown for approval.',
			placeHolder: 'e.g. handle the empty-name case in greet',
			ignoreFocusOut: true,
		});
		if (!instruction?.trim()) return undefined;
		arg.instruction = instruction.trim();
	}
	try {
		const result = (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] })) as protocol.Result;
		last = { command, arg: { uri: arg.uri, range: arg.range }, result };
		showResult(name, result, command);
		return result;
	} catch (e) {
		showError(name, e);
		return undefined;
	}
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

function showResult(name: string, r: protocol.Result, command: string): void {
	output.info(`${name} ${r.runId || r.sessionId}: ${r.status}`);
	output.appendLine(r.summary);
	for (const [i, step] of (r.steps ?? []).entries()) {
		output.appendLine(`  ${i + 1}. ${stepText(step)}`);
	}
	for (const f of r.findings ?? []) {
		output.appendLine(`  ${f.path}:${f.line}: ${f.severity}: ${f.message}`);
	}
	const e = r.edits;
	if (e && e.proposed > 0) output.appendLine(`  edits: ${e.proposed} proposed, ${e.applied} applied, ${e.rejected} rejected${e.stale ? `, ${e.stale} stale` : ''}`);

	let text = `agentls ${name} ${r.status}: ${r.summary}`;
	if (r.findings?.length) text += ` (${r.findings.length} finding(s) in Problems)`;
	const show = r.status === 'failed' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
	const actions: string[] = [];
	if (command === protocol.Plan && r.status === 'done') actions.push(EXECUTE_PLAN);
	if (r.sessionId) actions.push(FOLLOW_UP);
	if (command === protocol.Execute && (e?.applied ?? 0) > 0) actions.push(REVERT);
	void show(text, ...actions, 'Details').then((pick) => {
		switch (pick) {
			case EXECUTE_PLAN:
				return vscode.commands.executeCommand(protocol.Execute, { ...last?.arg, instruction: '', sessionId: r.sessionId });
			case FOLLOW_UP:
				return vscode.commands.executeCommand(command, { ...last?.arg, sessionId: r.sessionId });
			case REVERT:
				return vscode.commands.executeCommand(protocol.Revert, { runId: r.runId });
			case 'Details':
				output.show(true);
		}
		return undefined;
	});
}

// The actions offered after a run.
const EXECUTE_PLAN = 'Execute This Plan';
const FOLLOW_UP = 'Follow Up…';
const REVERT = 'Revert';

/** stepText renders a result step: text, or a tool step {turn, tool, ok, code?}. */
function stepText(step: unknown): string {
	if (typeof step === 'string') return step;
	const s = step as { turn?: number; tool?: string; ok?: boolean; code?: string; title?: string };
	if (s?.title) return s.title;
	if (s?.tool) return `turn ${s.turn ?? '?'}: ${s.tool} ${s.ok === false ? 'failed' : 'ok'}${s.code ? ` (${s.code})` : ''}`;
	return JSON.stringify(step);
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

/** Answers agentls/saveDocuments: save each open document the server names. */
async function saveDocuments(c: LanguageClient, params: protocol.SaveDocumentsParams): Promise<protocol.SaveDocumentsResult> {
	const saved: string[] = [];
	for (const raw of params?.uris ?? []) {
		const uri = c.protocol2CodeConverter.asUri(raw).toString();
		const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
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
