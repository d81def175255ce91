// agentls for VS Code (DESIGN.md E12): starts `agentls serve` with
// vscode-languageclient and puts plan / review / execute on the command
// palette and the editor context menu.
//
// The four agentls.* commands are the server's own: the language client
// registers them from executeCommandProvider, and the middleware below fills
// in what the server needs — the document and selection, and the
// instruction, asked with an input box when a palette entry, the context menu
// or a code action left it out. Edits arrive as workspace/applyEdit with
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
} from 'vscode-languageclient/node';

// The wire shapes, generated from the server's Go package lspserver/command.
import * as protocol from './protocol';

const RUN_COMMANDS = new Set<string>([protocol.Plan, protocol.Review, protocol.Execute]);
const NEEDS_INSTRUCTION = new Set<string>([protocol.Plan, protocol.Execute]);

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;

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
	if (!RUN_COMMANDS.has(command) || !client) return next(command, args);

	const arg = commandArg(client, args);
	if (!arg) {
		void vscode.window.showErrorMessage('agentls: open a file in the workspace first.');
		return undefined;
	}
	const name = command.replace(/^agentls\./, '');
	if (NEEDS_INSTRUCTION.has(command) && !arg.instruction?.trim()) {
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
		showResult(name, result);
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

function showResult(name: string, r: protocol.Result): void {
	output.info(`${name} ${r.sessionId}: ${r.status}`);
	output.appendLine(r.summary);
	for (const [i, step] of (r.steps ?? []).entries()) {
		output.appendLine(`  ${i + 1}. ${stepText(step)}`);
	}
	for (const f of r.findings ?? []) {
		output.appendLine(`  ${f.path}:${f.line}: ${f.severity}: ${f.message}`);
	}
	const e = r.edits;
	if (e && e.proposed > 0) output.appendLine(`  edits: ${e.proposed} proposed, ${e.applied} applied, ${e.rejected} rejected`);

	let text = `agentls ${name} ${r.status}: ${r.summary}`;
	if (r.findings?.length) text += ` (${r.findings.length} finding(s) in Problems)`;
	const show = r.status === 'failed' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
	void show(text, 'Details').then((pick) => pick && output.show(true));
}

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
