// The live run view (DESIGN.md E16): one output channel per run, shown as
// the run begins, with the model's text as it streams and each tool call
// with its outcome in prose (under a command, the files it added, changed
// and deleted that landed; under an edit, which hunks landed), the one
// status bar item (click: cancel the running runs; "waiting for you" while
// a question waits, E18), and plans kept as markdown documents.
//
// The server sends agentls/runEvent only because the extension announces
// experimental.agentls.runEvents. A run's events carry its session ID; the
// "started" event of a run arrives before anything else of it, and is
// matched to the oldest run this window started that has no session yet.

import * as vscode from 'vscode';

import * as protocol from './protocol';

/** RUN_VIEW_SETTLES is how long VS Code may take to show a run view after it was asked to (ms). */
const RUN_VIEW_SETTLES = 1500;

/** How many finished runs keep their output channel. */
const KEEP_RUNS = 8;

/** Run is one plan, review or execute this window started. */
export class Run {
	sessionId?: string;
	readonly channel: vscode.OutputChannel;
	/** cancelRequest abandons the request when the session is not known yet. */
	cancelRequest?: () => void;
	private midLine = false;
	status = 'running';
	/** doing is what the status item says the run does. */
	doing = 'starting';
	/** explains are why each step was allowed, asked or denied (E21), in order. */
	readonly explains: protocol.StepExplanation[] = [];

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
		run.channel.show(true); // the run view opens with the run, the editor keeps the focus
		this.shown = Date.now();
		return run;
	}

	/** shown is when a run view was last asked to show (Date.now()). */
	private shown = 0;

	/** settled resolves once the last run view asked for has had RUN_VIEW_SETTLES to show. */
	async settled(): Promise<void> {
		const wait = this.shown + RUN_VIEW_SETTLES - Date.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
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
		this.render();
	}

	/** show opens the output of the newest run. */
	show(): void {
		const run = this.active[this.active.length - 1] ?? this.done[this.done.length - 1];
		if (run) run.channel.show(true);
		else void vscode.window.showInformationMessage('agentls: no run yet in this window.');
	}

	/**
	 * why lets the user pick a step of the newest run that has any and shows why it was allowed,
	 * asked or denied (issue 28, E21): the rule, where it was written, who approved.
	 */
	async why(): Promise<void> {
		const run = [...this.done, ...this.active].reverse().find((r) => r.explains.length > 0);
		if (!run) {
			void vscode.window.showInformationMessage('agentls: no step of a run in this window to explain yet.');
			return;
		}
		const picked = await vscode.window.showQuickPick(
			run.explains.map((x) => ({ ...whyItem(x), x })),
			{ title: `agentls run ${run.n}: why was a step allowed, asked or denied?`, matchOnDetail: true },
		);
		if (!picked) return;
		const [head, ...rest] = whyLines(picked.x);
		void vscode.window.showInformationMessage(head, { modal: true, detail: rest.join('\n') });
	}

	/** abandonUnstarted abandons the requests of the runs whose session is not known yet (a cancel of every run). */
	abandonUnstarted(): void {
		for (const run of this.active) {
			if (run.sessionId) continue;
			run.line('── cancel requested');
			run.cancelRequest?.();
		}
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
				if (e.explain) run.explains.push(e.explain);
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
		run.doing = what;
		this.render();
	}

	/**
	 * asking marks a question of the server as waiting for the user until the returned function is called:
	 * the status item says so (E18), whatever a run reports meanwhile.
	 */
	asking(): () => void {
		this.waiting++;
		this.render();
		let done = false;
		return () => {
			if (done) return;
			done = true;
			this.waiting--;
			this.render();
		};
	}

	/** waiting counts the questions shown and not answered yet. */
	private waiting = 0;

	/** starting shows that the server is (re)starting. */
	starting(): void {
		this.problem = undefined;
		this.status.text = '$(loading~spin) agentls: starting';
		this.status.tooltip = 'agentls: the server is starting';
	}

	/** ready shows that the server runs, or why it does not. */
	ready(problem?: string): void {
		this.problem = problem;
		this.render();
	}

	private problem?: string;

	/** render shows the state in the one status item: a question waits, a run runs, the server failed, or idle. */
	private render(): void {
		const item = this.status;
		item.backgroundColor = undefined;
		if (this.waiting > 0) {
			item.text = '$(bell) agentls: waiting for you';
			item.tooltip = `agentls: ${this.waiting === 1 ? 'a question waits' : `${this.waiting} questions wait`} for your answer`;
			item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
			item.command = 'agentls.showRun';
			return;
		}
		const run = this.active[this.active.length - 1];
		if (run) {
			item.text = `$(sync~spin) agentls ${run.mode}: ${run.doing}`;
			item.tooltip = 'agentls is running: click to cancel the running runs';
			item.command = { title: 'Cancel', command: 'agentls.cancel' };
			return;
		}
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
	if (!e.ok) return `  ✗ ${tool}${subject} refused: ${visible(e.code ?? 'error')}${e.message ? ` — ${visible(reasonText(e.message))}` : ''}`;
	if (e.exitCode !== undefined && e.exitCode !== null) return `  ${e.exitCode === 0 ? '✓' : '✗'} ${tool}${subject}: exit ${e.exitCode}`;
	return `  ✓ ${tool}${subject}`;
}

/**
 * reasonText is the reason of a tool error the model got as JSON ({"code", "reason", …}, its head maybe
 * cut off), else message as it is.
 */
export function reasonText(message: string): string {
	if (!message.trimStart().startsWith('{')) return message;
	const m = /"reason"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(message);
	if (!m) return message;
	try {
		return JSON.parse(m[1]) as string;
	} catch {
		return message;
	}
}

/** MAX_FILE_LINES bounds the files listed under one command; the rest are counted. */
export const MAX_FILE_LINES = 100;

/** MAX_OUTPUT_LINES is how many non-empty lines of a result's head the view shows. */
const MAX_OUTPUT_LINES = 6;

/**
 * toolResultLines renders a tool call's outcome for the run view: the outcome; for an edit, which
 * hunks landed, in words (issue 24: no JSON); the files a
 * command changed that landed (issue 21, S9), then the head of the output without the
 * `[files …]` lines the list repeats. Text from the model, a command or the repository has
 * its control characters made visible (T22).
 */
export function toolResultLines(e: protocol.RunEvent): string[] {
	const edit = e.ok ? editResult(e.output ?? '') : undefined;
	if (edit) return [toolResultText(e), ...editLines(edit)];
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

/**
 * EditCounts are the result's counts as the server sends them (E18), with the files created and deleted
 * named when the wire carries them (optional here, so the view is ready before the server sends them).
 */
export type EditCounts = protocol.EditCounts & { created?: string[]; deleted?: string[] };

/**
 * editsText says what the run's edits came to, as the server counted them hunk by hunk: proposed, applied,
 * rejected by the user (a hunk left unticked in the preview is rejected) and refused as stale, then the
 * files created and deleted.
 */
export function editsText(e: EditCounts): string {
	let text = `hunks: ${e.proposed} proposed, ${e.applied} applied, ${e.rejected} rejected, ${e.stale ?? 0} stale`;
	if (e.created?.length) text += `; created ${e.created.map(visible).join(', ')}`;
	if (e.deleted?.length) text += `; deleted ${e.deleted.map(visible).join(', ')}`;
	return text;
}

/** linesText says `line 6` for "6" or "6-6", `lines 6-8` for "6-8", keeping what follows ("1 (insert)"). */
function linesText(l: string): string {
	const m = /^(\d+)(?:-(\d+))?(.*)$/.exec(l);
	if (m && (m[2] === undefined || m[1] === m[2])) return `line ${m[1]}${visible(m[3])}`;
	return `lines ${visible(l)}`;
}

/** EditResult is what an edit tool tells the model (tools/builtin/propose.go). */
interface EditResult {
	path: string;
	applied: boolean;
	hunks?: { index: number; lines: string; applied: boolean; user_reason?: string; user_change?: string }[];
	saved?: boolean;
	reason?: string;
	/** Why the user rejected the whole change, in their words (issue 28). */
	user_reason?: string;
}

/** editResult returns output as an edit tool's result, or undefined when it is none. */
function editResult(output: string): EditResult | undefined {
	if (!output.trimStart().startsWith('{')) return undefined;
	try {
		const r = JSON.parse(output) as Partial<EditResult>;
		if (typeof r.path === 'string' && typeof r.applied === 'boolean') return r as EditResult;
	} catch {
		// the head of a longer result, or not JSON: shown as it is
	}
	return undefined;
}

/**
 * editLines renders an edit's result as prose: which hunks landed and which the user left out, whether it
 * is saved, and why it differs from the proposal.
 */
export function editLines(r: EditResult): string[] {
	const hunks = r.hunks ?? [];
	const landed = hunks.filter((h) => h.applied);
	const lines: string[] = [];
	if (hunks.length > 1) {
		lines.push(`    ${landed.length} of ${hunks.length} hunks applied`);
		for (const h of hunks) lines.push(`    ${h.applied ? '✓' : '✗'} ${linesText(h.lines)} ${h.applied ? 'applied' : 'rejected'}${userSaid(h)}`);
	} else if (hunks.length === 1) {
		lines.push(`    ${landed.length ? 'applied' : 'rejected'}: ${linesText(hunks[0].lines)}${userSaid(hunks[0])}`);
	} else {
		lines.push(`    ${r.applied ? 'applied' : 'not applied'}`);
	}
	if (r.saved === false && landed.length) lines.push('    not saved yet');
	if (r.reason) lines.push(`    ${visible(r.reason)}`);
	if (r.user_reason && !hunks.some((h) => h.user_reason)) lines.push(`    your reason: ${visible(r.user_reason)}`);
	return lines;
}

/** userSaid is what the user answered about a hunk (issue 28): their reason, or that it landed with their text. */
function userSaid(h: { user_reason?: string; user_change?: string }): string {
	if (h.user_reason) return ` (your reason: ${visible(h.user_reason)})`;
	return h.user_change ? ', with your change' : '';
}

/** firstLine is a markdown text's first non-blank line as plain words (no heading marks, bullets or emphasis), cut at 120 characters, control characters made visible. */
export function firstLine(md: string): string {
	const line = md.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
	const plain = line.replace(/^(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, '').replace(/(\*\*|__|`)/g, '').trim();
	return visible(plain.length > 120 ? plain.slice(0, 119) + '…' : plain);
}

/** whyItem is a step's row in the why picker: the call and the decision, the sentence below. */
export function whyItem(x: protocol.StepExplanation): { label: string; description: string; detail: string } {
	const subject = x.subject ? ` ${visible(x.subject)}` : '';
	return {
		label: `${x.step ?? '?'}. ${visible(x.tool)}${subject}: ${visible(x.decision)}`,
		description: visible(x.origin),
		detail: visible(x.because),
	};
}

/** whyLines explains a step, as Neovim's K and `agentls why` do: the call, the sentence, the rule, its origin, who approved. */
export function whyLines(x: protocol.StepExplanation): string[] {
	const lines = [whyItem(x).label, visible(x.because)];
	if (x.rule) lines.push(`rule: ${visible(x.rule)}`);
	lines.push(`from: ${visible(x.origin)}${x.profile ? ` (profile ${visible(x.profile)})` : ''}`);
	if (x.approved_by) lines.push(`approved by: ${visible(x.approved_by)}${x.grant ? ` (kept answer ${visible(x.grant)})` : ''}`);
	return lines;
}
