// The live run view (DESIGN.md E16): one output channel per run with the
// model's text as it streams and each tool call with its outcome, a status
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
				run.line(`${sub}${toolResultText(e)}`);
				for (const l of (e.output ?? '').split('\n').filter((l) => l.trim() !== '').slice(0, 6)) run.line(`${sub}    │ ${l}`);
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
	const subject = e.subject ? ` ${e.subject}` : '';
	if (!e.ok) return `  ✗ ${e.tool}${subject} refused: ${e.code ?? 'error'}${e.message ? ` — ${e.message}` : ''}`;
	if (e.exitCode !== undefined) return `  ${e.exitCode === 0 ? '✓' : '✗'} ${e.tool}${subject}: exit ${e.exitCode}`;
	return `  ✓ ${e.tool}${subject}`;
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
