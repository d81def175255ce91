// The hunks of an edit agentls proposes (workspace/applyEdit with one change annotation "agentls.N" per hunk)
// and the answer about them that our plugins send back in the reply's "agentls" member (issue 28, documented
// in lspserver/doc.go): why the user rejected hunks or the whole change, and the text of hunks the user edited
// before accepting them. Pure functions, no VS Code: unit-tested in test/runs.test.ts.

import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, Position } from 'vscode-languageclient/node';

/** A hunk as proposed: N of its annotation "agentls.N", its range in the document as it was, its text. */
export interface Hunk {
	index: number;
	start: Position;
	end: Position;
	newText: string;
	/** The annotation's label, e.g. "edit_file: main.go lines 10: …". */
	label: string;
}

/** A proposed change to one file: its hunks, or a new file (one decision, no hunks to answer about). */
export interface Proposal {
	uri: string;
	/** The version of the open document the hunks were made for (null: the file as on disk). */
	version: number | null;
	create: boolean;
	hunks: Hunk[];
}

/** The "agentls" member of a workspace/applyEdit reply. */
export interface HunkReply {
	reason?: string;
	hunks?: { index: number; reason?: string; text?: string }[];
}

export type ApplyReply = ApplyWorkspaceEditResult & { agentls?: HunkReply };

const HUNK_ID = /^agentls\.(\d+)$/;
const CREATE_ID = 'agentls.create';

interface RawEdit {
	range: { start: Position; end: Position };
	newText: string;
	annotationId?: string;
}

/**
 * proposal returns the change of params when agentls proposes it hunk by hunk (one document, every edit
 * annotated "agentls.N") or as a new file ("agentls.create"); otherwise undefined (a deletion, an edit of
 * another server or of an older agentls): such an edit goes through as it is.
 */
export function proposal(params: ApplyWorkspaceEditParams): Proposal | undefined {
	const changes = params.edit?.documentChanges;
	if (!Array.isArray(changes)) return undefined;
	let create = false;
	let doc: { uri: string; version: number | null; edits: RawEdit[] } | undefined;
	for (const c of changes as unknown[]) {
		const ch = c as { kind?: string; annotationId?: string; textDocument?: { uri: string; version?: number | null }; edits?: RawEdit[] };
		if (ch.kind === 'create' && ch.annotationId === CREATE_ID) {
			create = true;
			continue;
		}
		if (ch.kind !== undefined || !ch.textDocument || !Array.isArray(ch.edits) || doc) return undefined;
		doc = { uri: ch.textDocument.uri, version: ch.textDocument.version ?? null, edits: ch.edits };
	}
	if (!doc || !doc.edits.length) return undefined;
	const annotations = params.edit.changeAnnotations ?? {};
	const hunks: Hunk[] = [];
	for (const e of doc.edits) {
		if (create && e.annotationId === CREATE_ID) continue;
		const m = HUNK_ID.exec(e.annotationId ?? '');
		if (!m || create) return undefined;
		hunks.push({ index: Number(m[1]), start: e.range.start, end: e.range.end, newText: e.newText, label: annotations[e.annotationId!]?.label ?? `hunk ${Number(m[1]) + 1}` });
	}
	return { uri: doc.uri, version: doc.version, create, hunks };
}

/**
 * withTexts returns a copy of params in which each hunk of texts (by index) proposes the user's text
 * instead, its label saying so; params itself is left as it is.
 */
export function withTexts(params: ApplyWorkspaceEditParams, texts: Map<number, string>): ApplyWorkspaceEditParams {
	const copy = JSON.parse(JSON.stringify(params)) as ApplyWorkspaceEditParams;
	for (const c of (copy.edit.documentChanges ?? []) as unknown[]) {
		for (const e of ((c as { edits?: RawEdit[] }).edits ?? [])) {
			const m = HUNK_ID.exec(e.annotationId ?? '');
			const text = m ? texts.get(Number(m[1])) : undefined;
			if (text === undefined) continue;
			e.newText = text;
			const a = copy.edit.changeAnnotations?.[e.annotationId!];
			if (a && !a.label.endsWith(YOUR_TEXT)) a.label += YOUR_TEXT;
		}
	}
	return copy;
}

const YOUR_TEXT = ' (your text)';

/** offsetAt is the offset in text (UTF-16, as LSP positions count) of pos; lines end at \n, \r\n or \r. */
export function offsetAt(text: string, pos: Position): number {
	let off = 0;
	for (let line = 0; line < pos.line; line++) {
		const nl = text.slice(off).search(/\r\n|\r|\n/);
		if (nl < 0) return text.length;
		off += nl + (text.startsWith('\r\n', off + nl) ? 2 : 1);
	}
	const rest = text.slice(off);
	const eol = rest.search(/\r|\n/);
	return off + Math.min(pos.character, eol < 0 ? rest.length : eol);
}

/**
 * landed says, hunk by hunk, whether got is old with the hunk applied (its text, or the user's text in texts)
 * or left as it was; undefined when got is not old with some of the hunks applied (the user typed meanwhile,
 * the edit failed). As the server's own check, lspserver/propose_hunks.go.
 */
export function landed(old: string, got: string, hunks: Hunk[], texts = new Map<number, string>()): boolean[] | undefined {
	const hs = hunks
		.map((h) => ({ start: offsetAt(old, h.start), end: offsetAt(old, h.end), repl: texts.get(h.index) ?? h.newText }))
		.sort((a, b) => a.start - b.start);
	const applied = new Array<boolean>(hs.length).fill(false);
	const failed = new Set<string>();
	const match = (i: number, pos: number, prev: number): boolean => {
		if (i === hs.length) return got.slice(pos) === old.slice(prev);
		if (failed.has(`${i},${pos}`)) return false;
		const h = hs[i];
		const seg = old.slice(prev, h.start);
		if (got.startsWith(seg, pos)) {
			const p = pos + seg.length;
			if (got.startsWith(h.repl, p) && match(i + 1, p + h.repl.length, h.end)) {
				applied[i] = true;
				return true;
			}
			const o = old.slice(h.start, h.end);
			if (got.startsWith(o, p) && match(i + 1, p + o.length, h.end)) {
				applied[i] = false;
				return true;
			}
		}
		failed.add(`${i},${pos}`);
		return false;
	};
	if (!match(0, 0, 0)) return undefined;
	// Back in the order of hunks, not of offsets.
	const order = hunks.map((h, k) => ({ k, start: offsetAt(old, h.start) })).sort((a, b) => a.start - b.start);
	const out = new Array<boolean>(hunks.length).fill(false);
	order.forEach((o, j) => (out[o.k] = applied[j]));
	return out;
}

/**
 * reply adds the user's answers to the editor's result: the reason for the whole change, the reasons for
 * hunks, the texts of hunks the user edited. Blank reasons are left out; with nothing to say, result as it is.
 */
export function reply(result: ApplyWorkspaceEditResult, answers: { reason?: string; hunks?: { index: number; reason?: string; text?: string }[] }): ApplyReply {
	const out: HunkReply = {};
	if (answers.reason?.trim()) out.reason = answers.reason.trim();
	const hunks = (answers.hunks ?? [])
		.map((h) => ({ index: h.index, ...(h.reason?.trim() ? { reason: h.reason.trim() } : {}), ...(h.text !== undefined ? { text: h.text } : {}) }))
		.filter((h) => h.reason !== undefined || h.text !== undefined);
	if (hunks.length) out.hunks = hunks;
	return out.reason || out.hunks ? { ...result, agentls: out } : result;
}
