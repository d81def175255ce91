// The sessions of the workspace (issue 24, E16; A16): "agentls: Sessions…"
// lists them with `agentls sessions --json` (the same binary the extension
// starts as a server, in the workspace folder), and for the one picked
// offers to open it (`agentls sessions show`, as a document), to continue it
// with a new instruction (agentls.execute with its sessionId), or to revert
// one of its runs (agentls.revert with the run's runId). The server does the
// work; this only lists and asks.

import { execFile } from 'node:child_process';
import * as vscode from 'vscode';

import { visible } from './runs';

/** SessionInfo is one line of `agentls sessions --json` (agent/session Info). */
export interface SessionInfo {
	id: string;
	started: string;
	updated: string;
	mode: string;
	runs: number;
	turns: number;
	task: string;
	damaged?: string;
}

/** RunInfo is one run of `agentls sessions show ID --json` (agent/session RunInfo). */
export interface RunInfo {
	n: number;
	id: string;
	mode: string;
	instruction: string;
	status?: string;
	summary?: string;
	revertedBy?: number;
	changes?: { path: string }[];
}

/** What the sessions view needs from the extension. */
export interface SessionActions {
	/** serverPath is the agentls binary. */
	serverPath(): string;
	/** continueSession runs an execute in the session, asking for the instruction. */
	continueSession(sessionId: string): Promise<unknown>;
	/** revertRun reverts one run. */
	revertRun(runId: string): Promise<unknown>;
}

/** agentls runs the CLI in the workspace folder and returns its stdout; a failure is an Error with its stderr. */
function agentls(path: string, args: string[]): Promise<string> {
	const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
	return new Promise((resolve, reject) => {
		execFile(path, args, { cwd, maxBuffer: 64 << 20, timeout: 30_000 }, (err, stdout, stderr) => {
			if (err) reject(new Error(`${path} ${args.join(' ')}: ${String(stderr).trim() || err.message}`));
			else resolve(String(stdout));
		});
	});
}

/** parseSessions reads `agentls sessions --json`: one session per line, newest first as the CLI lists them. */
export function parseSessions(out: string): SessionInfo[] {
	return out
		.split('\n')
		.filter((l) => l.trim().startsWith('{'))
		.map((l) => JSON.parse(l) as SessionInfo);
}

/** sessionItem is a session as a quick-pick entry. */
export function sessionItem(s: SessionInfo): vscode.QuickPickItem & { session: SessionInfo } {
	const when = s.updated || s.started;
	return {
		label: visible(s.task || '(no task)'),
		description: `${visible(s.mode)} · ${s.runs} run(s) · ${when ? new Date(when).toLocaleString() : ''}`,
		detail: `session ${visible(s.id)}${s.damaged ? ` — damaged: ${visible(s.damaged)}` : ''}`,
		session: s,
	};
}

const OPEN = 'Open';
const CONTINUE = 'Continue with an instruction…';
const REVERT = 'Revert a run…';

/** showSessions is "agentls: Sessions…". */
export async function showSessions(actions: SessionActions): Promise<void> {
	const path = actions.serverPath();
	let sessions: SessionInfo[];
	try {
		sessions = parseSessions(await agentls(path, ['sessions', '--json']));
	} catch (e) {
		void vscode.window.showErrorMessage(`agentls: cannot list the sessions: ${String(e)}`);
		return;
	}
	if (!sessions.length) {
		void vscode.window.showInformationMessage('agentls: no sessions in this workspace yet.');
		return;
	}
	const pick = await vscode.window.showQuickPick(sessions.map(sessionItem), { title: 'agentls: sessions of this workspace', matchOnDetail: true });
	if (!pick) return;
	const id = pick.session.id;
	const what = await vscode.window.showQuickPick([OPEN, CONTINUE, REVERT], { title: `agentls: session ${visible(id)}` });
	if (what === OPEN) {
		const text = await agentls(path, ['sessions', 'show', id]).catch((e: unknown) => String(e));
		const doc = await vscode.workspace.openTextDocument({ content: text, language: 'plaintext' });
		await vscode.window.showTextDocument(doc, { preview: false });
	} else if (what === CONTINUE) {
		await actions.continueSession(id);
	} else if (what === REVERT) {
		let runs: RunInfo[];
		try {
			runs = (JSON.parse(await agentls(path, ['sessions', 'show', id, '--json'])) as { runs?: RunInfo[] }).runs ?? [];
		} catch (e) {
			void vscode.window.showErrorMessage(`agentls: cannot read session ${visible(id)}: ${String(e)}`);
			return;
		}
		const changed = runs.filter((r) => (r.changes?.length ?? 0) > 0 && !r.revertedBy).reverse();
		if (!changed.length) {
			void vscode.window.showInformationMessage(`agentls: no run of session ${visible(id)} left files to revert.`);
			return;
		}
		const run = await vscode.window.showQuickPick(
			changed.map((r) => ({
				label: `run ${r.n}: ${visible(r.instruction || r.mode)}`,
				description: `${visible(r.mode)} · ${visible(r.status ?? 'did not end')}`,
				detail: (r.changes ?? []).map((c) => visible(c.path)).join(', '),
				run: r,
			})),
			{ title: `agentls: revert a run of session ${visible(id)}` },
		);
		if (run) await actions.revertRun(run.run.id);
	}
}
