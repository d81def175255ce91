// The live run view (DESIGN.md E16): one output channel per run with the
// model's text as it streams and each tool call with its outcome (under a
// command, the files it added, changed and deleted that landed), a status
// bar item (click: cancel the running runs), a cancellable progress
// notification, and plans kept as markdown documents.
//
// The server sends agentls/runEvent only because the extension announces
// experimental.agentls.runEvents. A run's events carry its session ID; the
// "started" event of a run arrives before anything else of it, and is
// matched to the oldest run this window started that has no session yet.

import * as vscode from 'vscode';

import * as protocol from './protocol';

/** How many finished runs keep their output channel. */
const KEEP_RUNS = 8;

/** Run is one plan, review or execute this window started. */
export class Run {
	sessionId?: string;
	readonly channel: vscode.OutputChannel;
	/** onProgress shows a line in the progress notification. */
	onProgress?: (message: string) => void;
	/** cancelRequest abandons the request when the session is not known yet. */
	cancelRequest?: () => void;
	private midLine = false;
	status = 'running';

	constructor(
		readonly n: number,
		readonly mode: string,
		readonly target: string,
		readonly instruction: string,
	) {
		this.channel = vscode.window.createOutputChannel(`agentls run ${n}: ${mode}`);
		this.channel.appendLine(`agentls ${mode} ${target}`);
		if (instruction) this.channel.appendLine(`instruction: ${instruction}`);
		this.channel.appendLine('');
	}

	/** line writes a whole line, after the streamed text if any. */
	line(text: string): void {
		if (this.midLine) this.channel.appendLine('');
		this.midLine = false;
		this.channel.appendLine(text);
	}

	text(piece: string): void {
		this.channel.append(piece);
		this.midLine = !piece.endsWith('\n');
	}
}

/** Runs keeps the runs of this window and the status bar item. */
export class Runs implements vscode.Disposable {
	private n = 0;
	private readonly active: Run[] = [];
	private readonly done: Run[] = [];
	private readonly status: vscode.StatusBarItem;

	constructor(private readonly storage: vscode.Uri) {
		this.status = vscode.window.createStatusBarItem('agentls.status', vscode.StatusBarAlignment.Left, 0);
		this.status.name = 'agentls';
		this.starting();
		this.status.show();
	}

	dispose(): void {
		this.status.dispose();
		for (const r of [...this.active, ...this.done]) r.channel.dispose();
	}

	begin(mode: string, target: string, instruction: string): Run {
		const run = new Run(++this.n, mode, target, instruction);
		this.active.push(run);
		this.busy(run, 'starting');
		return run;
	}

	/** finish records the result in the run's channel and returns it to the idle state. */
	finish(run: Run, r: protocol.Result | undefined, error?: string): void {
		run.status = r?.status ?? 'failed';
		if (r) {
			run.line('');
			run.line(`── ${r.status} (session ${r.sessionId})`);
			if (r.summary) run.line(r.summary);
			for (const f of r.findings ?? []) run.line(`  ${f.path}:${f.line}: ${f.severity}: ${f.message}`);
			if (r.edits.proposed > 0) run.line(editsText(r.edits));
			const steps = r.steps ?? [];
			if (steps.length) run.line(`steps: ${steps.map(stepText).join('; ')}`);
		} else if (error) {
			run.line(`── failed: ${error}`);
		}
		const i = this.active.indexOf(run);
		if (i >= 0) this.active.splice(i, 1);
		this.done.push(run);
		while (this.done.length > KEEP_RUNS) this.done.shift()?.channel.dispose();
		if (this.active.length) this.busy(this.active[this.active.length - 1], 'running');
		else this.idle();
	}

	/** show opens the output of the newest run. */
	show(): void {
		const run = this.active[this.active.length - 1] ?? this.done[this.done.length - 1];
		if (run) run.channel.show(true);
		else void vscode.window.showInformationMessage('agentls: no run yet in this window.');
	}

	/** cancel asks the server to cancel run, or abandons its request when its session is not known yet. */
	async cancel(run: Run, sendCancel: (sessionId: string) => Promise<unknown>): Promise<void> {
		run.line('── cancel requested');
		if (run.sessionId) await sendCancel(run.sessionId);
		else run.cancelRequest?.();
	}

	/** event handles agentls/runEvent. */
	event(e: protocol.RunEvent): void {
		let run = this.active.find((r) => r.sessionId === e.sessionId);
		if (!run && e.kind === 'started') {
			run = this.active.find((r) => !r.sessionId);
			if (run) {
				run.sessionId = e.sessionId;
				run.line(`session ${e.sessionId}`);
			}
		}
		if (!run) return; // a run of another client of the same server
		const sub = e.depth ? '  [sub-agent] ' : '';
		switch (e.kind) {
			case 'text':
				run.text(e.text ?? '');
				break;
			case 'toolCall':
				run.line(`${sub}▶ ${e.tool}`);
				this.busy(run, `turn ${e.turn}: ${e.tool}`);
				break;
			case 'toolResult':
				for (const l of toolResultLines(e)) run.line(`${sub}${l}`);
				break;
			case 'log':
				run.line(`${sub}[${e.level}] ${e.message}`);
				break;
			case 'ended':
				run.line(`── run ${e.status}`);
				break;
		}
	}

	/** savePlan keeps a plan as a markdown document and returns it. */
	async savePlan(run: Run, r: protocol.Result): Promise<vscode.Uri> {
		const dir = vscode.Uri.joinPath(this.storage, 'plans');
		await vscode.workspace.fs.createDirectory(dir);
		const stamp = new Date().toISOString().replace(/[:.]/g, '-');
		const uri = vscode.Uri.joinPath(dir, `${stamp}-${r.sessionId || run.n}.md`);
		const text =
			`# Plan: ${run.instruction || run.target}\n\n` +
			`- target: \`${run.target}\`\n- session: ${r.sessionId}\n- status: ${r.status}\n\n${r.summary}\n`;
		await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
		return uri;
	}

	/** plans lists the saved plans, newest first. */
	async plans(): Promise<vscode.Uri[]> {
		const dir = vscode.Uri.joinPath(this.storage, 'plans');
		try {
			const entries = await vscode.workspace.fs.readDirectory(dir);
			return entries
				.filter(([name, type]) => type === vscode.FileType.File && name.endsWith('.md'))
				.map(([name]) => vscode.Uri.joinPath(dir, name))
				.sort((a, b) => b.path.localeCompare(a.path));
		} catch {
			return [];
		}
	}

	private busy(run: Run, what: string): void {
		this.status.text = `$(sync~spin) agentls ${run.mode}: ${what}`;
		this.status.tooltip = 'agentls is running: click to cancel the running runs';
		this.status.command = { title: 'Cancel', command: 'agentls.cancel' };
		run.onProgress?.(what);
	}

	/** starting shows that the server is (re)starting. */
	starting(): void {
		this.problem = undefined;
		this.status.text = '$(loading~spin) agentls: starting';
		this.status.tooltip = 'agentls: the server is starting';
	}

	/** ready shows that the server runs, or why it does not. */
	ready(problem?: string): void {
		this.problem = problem;
		if (!this.active.length) this.idle();
	}

	private problem?: string;

	private idle(): void {
		if (this.problem) {
			this.status.text = '$(error) agentls';
			this.status.tooltip = `agentls: ${this.problem}; see the agentls output channel`;
			this.status.command = 'agentls.restart';
			return;
		}
		this.status.text = '$(hubot) agentls';
		this.status.tooltip = 'agentls: click to show the last run';
		this.status.command = 'agentls.showRun';
	}
}

/** toolResultText renders a tool call's outcome: exit code for commands, the code of a refusal. */
export function toolResultText(e: protocol.RunEvent): string {
	const tool = visible(e.tool ?? '?');
	const subject = e.subject ? ` ${visible(e.subject)}` : '';
	if (!e.ok) return `  ✗ ${tool}${subject} refused: ${visible(e.code ?? 'error')}${e.message ? ` — ${visible(e.message)}` : ''}`;
	if (e.exitCode !== undefined && e.exitCode !== null) return `  ${e.exitCode === 0 ? '✓' : '✗'} ${tool}${subject}: exit ${e.exitCode}`;
	return `  ✓ ${tool}${subject}`;
}

/** MAX_FILE_LINES bounds the files listed under one command; the rest are counted. */
export const MAX_FILE_LINES = 100;

/** MAX_OUTPUT_LINES is how many non-empty lines of a result's head the view shows. */
const MAX_OUTPUT_LINES = 6;

/**
 * toolResultLines renders a tool call's outcome for the run view: the outcome, the files a
 * command changed that landed (issue 21, S9), then the head of the output without the
 * `[files …]` lines the list repeats. Text from the model, a command or the repository has
 * its control characters made visible (T22).
 */
export function toolResultLines(e: protocol.RunEvent): string[] {
	const files = e.files ?? [];
	const lines = [toolResultText(e), ...fileLines(files)];
	for (const l of outputLines(e.output ?? '', files.length > 0).slice(0, MAX_OUTPUT_LINES)) lines.push(`    │ ${visibleLine(l)}`);
	return lines;
}

/** fileLines lists a command's landed files, one a line: `    + added new.txt`, `    ~ changed main.go`, `    - deleted old.txt`. */
export function fileLines(files: protocol.CommandFile[]): string[] {
	const lines = files.slice(0, MAX_FILE_LINES).map((f) => `    ${changeMark(f.change)} ${visible(f.change)} ${visible(f.path)}`);
	if (files.length > MAX_FILE_LINES) lines.push(`    … and ${files.length - MAX_FILE_LINES} more files`);
	return lines;
}

function changeMark(change: string): string {
	return change === 'added' ? '+' : change === 'deleted' ? '-' : '~';
}

/**
 * outputLines returns the non-empty lines of a result's head; when the files are listed,
 * without the `[files added|changed|deleted: …]` lines before the command's own output
 * (a command that prints such a line keeps it).
 */
export function outputLines(output: string, listed: boolean): string[] {
	const out: string[] = [];
	let own = false;
	for (const l of output.split('\n')) {
		if (l.trim() === '') continue;
		if (l === '[stdout]' || l === '[stderr]') own = true;
		if (listed && !own && /^\[files (added|changed|deleted): /.test(l)) continue;
		out.push(l);
	}
	return out;
}

/**
 * visible returns s with every control character made visible (T22), as the server's
 * sandbox.Visible does: C0 controls and DEL become \xNN (\n, \r, \t by name), C1 controls
 * and the format characters that reorder or hide text (bidi overrides, zero-width
 * characters, the BOM) become \uNNNN, and so does a lone surrogate. A backslash stays.
 */
export function visible(s: string): string {
	if (!/[\u0000-\u001f\u007f-\u009f\p{Cf}\ud800-\udfff]/u.test(s)) return s;
	let out = '';
	for (const ch of s) {
		const c = ch.codePointAt(0) ?? 0;
		if (ch === '\n') out += '\\n';
		else if (ch === '\r') out += '\\r';
		else if (ch === '\t') out += '\\t';
		else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
		else if ((c >= 0x80 && c < 0xa0) || (c >= 0xd800 && c <= 0xdfff) || /\p{Cf}/u.test(ch)) out += `\\u${c.toString(16).padStart(4, '0')}`;
		else out += ch;
	}
	return out;
}

/** visibleLine is a line of output made visible, its tabs kept: they only move the text right. */
export function visibleLine(l: string): string {
	return l.split('\t').map(visible).join('\t');
}

/** stepText renders a result step: `run_command exit 126`, `edit_file ok`, `read_file approval_denied`. */
export function stepText(s: protocol.Step): string {
	if (s.exitCode !== undefined && s.exitCode !== null) return `${s.tool} exit ${s.exitCode}`;
	if (!s.ok) return `${s.tool} ${s.code ?? 'failed'}`;
	return `${s.tool} ok`;
}

/** editsText counts the edits: what landed, and what the user rejected (an edit applied as nothing is rejected). */
export function editsText(e: protocol.EditCounts): string {
	return `edits: ${e.proposed} proposed, ${e.applied} applied, ${e.rejected} rejected`;
}
