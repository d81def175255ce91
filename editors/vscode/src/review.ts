// The review of a change agentls proposes (issue 28): VS Code's Refactor Preview first, as before, hunk by
// hunk; then the user may say why.
//
//   - Hunks left unticked: for each, an input box asks why (optional: Escape is "no reason", and the next
//     hunk is asked; the review is not cancelled).
//   - The whole change discarded: an input box asks why; its button "Edit the Proposal…" instead opens a hunk's
//     proposed text as a document of its own, where the user writes what they want. Saving it (Ctrl+S) shows the
//     Refactor Preview again with the user's text, ticked or not like any hunk; closing it unsaved goes back to
//     the proposal as it was.
//
// The answers go back in the reply's "agentls" member (hunks.ts): the model reads the reasons, and is told the
// user changed its proposal, with the diff, for a hunk that landed with the user's text.

import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from 'vscode-languageclient/node';

import { ApplyReply, Hunk, landed, Proposal, proposal, reply, withTexts } from './hunks';
import { visible } from './runs';

/** The scheme of the documents in which the user edits a proposed hunk. */
export const HUNK_SCHEME = 'agentls-hunk';

type Next = (params: ApplyWorkspaceEditParams) => Promise<ApplyWorkspaceEditResult>;

/** review shows the change of params for approval (next: the Refactor Preview) and asks why for what the user rejected. */
export async function review(params: ApplyWorkspaceEditParams, next: Next, files: HunkFiles): Promise<ApplyReply> {
	const p = proposal(params);
	if (!p) return next(params);
	const uri = vscode.Uri.parse(p.uri);
	// Made for another version of the document: the editor refuses it, the user rejected nothing.
	const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
	if (open && p.version !== null && open.version !== p.version) return next(params);
	const name = uri.path.split('/').pop() ?? uri.path;
	const texts = new Map<number, string>(); // the hunks the user edited
	for (;;) {
		const before = p.create ? undefined : await currentText(uri);
		const res = await next(texts.size ? withTexts(params, texts) : params);
		if (p.create) {
			if (res.applied) return res;
			const a = await askWhy(`agentls: why not the new file ${visible(name)}?`, undefined, false);
			return reply(res, { reason: a.reason });
		}
		// The edit reaches this side's copy of the document with an event of its own: wait a moment for it.
		const after = res.applied ? await textAfter(uri, before) : await currentText(uri);
		if (before === undefined || after === undefined) return res;
		if (res.applied) {
			const got = landed(before, after, p.hunks, texts);
			if (!got) return res; // not what the preview could make of it: the server tells what it finds
			const hunks: { index: number; reason?: string; text?: string }[] = [];
			for (const [k, h] of p.hunks.entries()) {
				if (got[k]) {
					if (texts.has(h.index)) hunks.push({ index: h.index, text: texts.get(h.index) });
					continue;
				}
				const a = await askWhy(`agentls: why not hunk ${h.index + 1} of ${p.hunks.length} (${visible(name)} ${linesOf(h)})?`, texts.get(h.index) ?? h.newText, false);
				hunks.push({ index: h.index, reason: a.reason });
			}
			return reply(res, { hunks });
		}
		if (after !== before) return res; // the file changed meanwhile: the server says stale
		const a = await askWhy(`agentls: why reject the change to ${visible(name)}?`, undefined, p.hunks.length > 0);
		if (!a.edit) return reply(res, { reason: a.reason });
		const h = await pickHunk(p, name);
		if (!h) continue;
		const text = await files.edit(h, name, texts.get(h.index) ?? h.newText);
		if (text !== undefined) texts.set(h.index, text);
	}
}

/** currentText is the document's text as VS Code holds it, or the file's on disk; undefined when there is none. */
async function currentText(uri: vscode.Uri): Promise<string | undefined> {
	const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
	if (doc) return doc.getText();
	try {
		return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
	} catch {
		return undefined;
	}
}

/** firstLine is a text's first non-blank line, trimmed, cut at 100 characters, control characters made visible. */
function firstLine(text: string): string {
	const line = text.split(/\r\n|\r|\n/).map((l) => l.trim()).find((l) => l !== '') ?? '';
	return visible(line.length > 100 ? line.slice(0, 99) + '…' : line);
}

/** textAfter is the document's text once it differs from before, or as it is after a few seconds. */
async function textAfter(uri: vscode.Uri, before: string | undefined): Promise<string | undefined> {
	const now = await currentText(uri);
	if (now !== before) return now;
	await new Promise<void>((resolve) => {
		const timer = setTimeout(() => {
			sub.dispose();
			resolve();
		}, 3000);
		const sub = vscode.workspace.onDidChangeTextDocument((e) => {
			if (e.document.uri.toString() !== uri.toString()) return;
			clearTimeout(timer);
			sub.dispose();
			resolve();
		});
	});
	return currentText(uri);
}

function linesOf(h: Hunk): string {
	const a = h.start.line + 1;
	const b = h.end.line + 1;
	return a === b || (h.end.character === 0 && b === a + 1) ? `line ${a}` : `lines ${a}-${b}`;
}

const EDIT_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: 'Edit the Proposal…' };

/**
 * askWhy asks why the user rejected something: the reason, '' when they gave none (Escape, or the box lost to
 * another one), or edit when they chose to edit the proposal instead (the button, with canEdit).
 */
function askWhy(title: string, proposed: string | undefined, canEdit: boolean): Promise<{ reason: string; edit?: boolean }> {
	const box = vscode.window.createInputBox();
	box.title = title;
	box.prompt = canEdit
		? 'Optional: the agent reads your words. Enter sends them; Escape: no reason. Or edit the proposal instead (the pencil button).'
		: 'Optional: the agent reads your words. Enter sends them; Escape: no reason.';
	if (proposed !== undefined) box.placeholder = `proposed: ${firstLine(proposed) || '(nothing: the lines removed)'}`;
	box.ignoreFocusOut = true;
	if (canEdit) box.buttons = [EDIT_BUTTON];
	return new Promise((resolve) => {
		let answer: { reason: string; edit?: boolean } = { reason: '' };
		box.onDidAccept(() => {
			answer = { reason: box.value };
			box.hide();
		});
		box.onDidTriggerButton((b) => {
			if (b !== EDIT_BUTTON) return;
			answer = { reason: '', edit: true };
			box.hide();
		});
		box.onDidHide(() => {
			box.dispose();
			resolve(answer);
		});
		box.show();
	});
}

/** pickHunk asks which hunk to edit (none to ask when there is one). */
async function pickHunk(p: Proposal, name: string): Promise<Hunk | undefined> {
	if (p.hunks.length === 1) return p.hunks[0];
	const pick = await vscode.window.showQuickPick(
		p.hunks.map((h) => ({ label: `hunk ${h.index + 1}: ${visible(name)} ${linesOf(h)}`, detail: `proposed: ${firstLine(h.newText) || '(nothing: the lines removed)'}`, h })),
		{ title: 'agentls: edit which hunk?', ignoreFocusOut: true },
	);
	return pick?.h;
}

/**
 * HunkFiles is the file system of the documents in which the user edits a hunk (agentls-hunk:/N/hunk-K-of-NAME):
 * in memory, never on disk nor seen by the language server. Saving one answers the edit with its text.
 */
export class HunkFiles implements vscode.FileSystemProvider {
	private readonly files = new Map<string, { data: Uint8Array; mtime: number; saved?: (text: string) => void; answer?: (text: string) => void }>();
	private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
	readonly onDidChangeFile = this.changed.event;
	private seq = 0;

	/**
	 * edit opens hunk h's text for editing; it resolves to what the user saved, or undefined when they closed
	 * the document unsaved.
	 */
	async edit(h: Hunk, name: string, text: string): Promise<string | undefined> {
		const uri = vscode.Uri.from({ scheme: HUNK_SCHEME, path: `/${++this.seq}/hunk-${h.index + 1}-of-${name}` });
		return new Promise<string | undefined>((resolve) => {
			const subs: vscode.Disposable[] = [];
			let seen = false; // the tab was open: a change without it then is its closing
			let over = false;
			const done = (saved: string | undefined) => {
				if (over) return;
				over = true;
				subs.forEach((d) => d.dispose());
				const f = this.files.get(uri.toString());
				if (f) f.saved = undefined;
				// The document goes once VS Code has finished saving it (it reads the file back).
				void closeTabs(uri).finally(() => this.files.delete(uri.toString()));
				resolve(saved);
			};
			// Only a save the user asks for answers (Ctrl+S): an auto-save (VS Code for the Web saves after a delay by
			// default) keeps the text and waits.
			let manual = false;
			this.files.set(uri.toString(), { data: new TextEncoder().encode(text), mtime: Date.now(), saved: (s) => manual && done(s), answer: done });
			subs.push(
				vscode.workspace.onWillSaveTextDocument((e) => {
					if (e.document.uri.toString() === uri.toString()) manual = e.reason === vscode.TextDocumentSaveReason.Manual;
				}),
				vscode.window.tabGroups.onDidChangeTabs(() => {
					if (tabsOf(uri).length) seen = true;
					else if (seen) done(undefined);
				}),
			);
			void vscode.window.showTextDocument(uri, { preview: false }).then(
				() =>
					void vscode.window.showInformationMessage(
						`agentls: write hunk ${h.index + 1} of ${name} as you want it, then save (Ctrl+S) or press Use This Text: the Refactor Preview shows your text. Close it unsaved to go back to the proposal.`,
					),
				(e) => {
					void vscode.window.showErrorMessage(`agentls: cannot open the hunk for editing: ${String(e)}`);
					done(undefined);
				},
			);
		});
	}

	/**
	 * use answers the edit of the hunk document uri with text: the agentls.useHunkText command (Ctrl+S there, and
	 * the editor's title button). A save alone cannot be the answer once an auto-save left the document clean:
	 * VS Code then saves nothing on Ctrl+S. It reports whether uri was a hunk being edited.
	 */
	use(uri: vscode.Uri, text: string): boolean {
		const answer = this.files.get(uri.toString())?.answer;
		answer?.(text);
		return answer !== undefined;
	}

	watch(): vscode.Disposable {
		return new vscode.Disposable(() => undefined);
	}
	stat(uri: vscode.Uri): vscode.FileStat {
		const f = this.get(uri);
		return { type: vscode.FileType.File, ctime: f.mtime, mtime: f.mtime, size: f.data.byteLength };
	}
	readDirectory(): [string, vscode.FileType][] {
		return [];
	}
	createDirectory(uri: vscode.Uri): void {
		throw vscode.FileSystemError.NoPermissions(uri);
	}
	readFile(uri: vscode.Uri): Uint8Array {
		return this.get(uri).data;
	}
	writeFile(uri: vscode.Uri, content: Uint8Array): void {
		const f = this.get(uri);
		f.data = content;
		f.mtime = Date.now();
		this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
		// The answer closes the document once VS Code has finished saving it (closeTabs).
		f.saved?.(new TextDecoder().decode(content));
	}
	delete(uri: vscode.Uri): void {
		throw vscode.FileSystemError.NoPermissions(uri);
	}
	rename(uri: vscode.Uri): void {
		throw vscode.FileSystemError.NoPermissions(uri);
	}
	private get(uri: vscode.Uri) {
		const f = this.files.get(uri.toString());
		if (!f) throw vscode.FileSystemError.FileNotFound(uri);
		return f;
	}
}

function tabsOf(uri: vscode.Uri): vscode.Tab[] {
	return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
}

/** closeTabs closes the document's tabs once it is saved (or after a few seconds: then VS Code asks). */
async function closeTabs(uri: vscode.Uri): Promise<void> {
	if (tabsOf(uri).some((t) => t.isDirty)) {
		await new Promise<void>((resolve) => {
			const timer = setTimeout(() => {
				sub.dispose();
				resolve();
			}, 5000);
			const sub = vscode.window.tabGroups.onDidChangeTabs(() => {
				if (tabsOf(uri).some((t) => t.isDirty)) return;
				clearTimeout(timer);
				sub.dispose();
				resolve();
			});
		});
	}
	const tabs = tabsOf(uri);
	if (tabs.length) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
}
