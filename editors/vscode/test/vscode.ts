// A stand-in for the `vscode` module in the unit tests of editors/vscode
// (test/*.test.ts): just what src/runs.ts touches when it renders a run, so
// the run view's text can be checked in Node without a VS Code. The tests
// are bundled with `esbuild --alias:vscode=./test/vscode.ts` (see
// cmd/agentls/files_landed_test.go).

/** FakeChannel records what the run view writes to an output channel. */
export class FakeChannel {
	text = '';
	shown = false;
	constructor(readonly name: string) {}
	append(s: string): void {
		this.text += s;
	}
	appendLine(s: string): void {
		this.text += s + '\n';
	}
	show(): void {
		this.shown = true;
	}
	dispose(): void {}
}

/** channels are the output channels created so far, oldest first. */
export const channels: FakeChannel[] = [];

export enum StatusBarAlignment {
	Left = 1,
	Right = 2,
}

export class ThemeColor {
	constructor(readonly id: string) {}
}

/** statusItems are the status bar items created so far. */
export const statusItems: { text: string; tooltip: string; backgroundColor?: ThemeColor }[] = [];

export const window = {
	createOutputChannel(name: string): FakeChannel {
		const c = new FakeChannel(name);
		channels.push(c);
		return c;
	},
	createStatusBarItem() {
		const item = { text: '', tooltip: '', name: '', command: undefined as unknown, backgroundColor: undefined as ThemeColor | undefined, show() {}, dispose() {} };
		statusItems.push(item);
		return item;
	},
	showInformationMessage: async (): Promise<undefined> => undefined,
};

export enum FileType {
	File = 1,
	Directory = 2,
}

export const workspace = {
	fs: {
		createDirectory: async (): Promise<void> => {},
		writeFile: async (): Promise<void> => {},
		readDirectory: async (): Promise<[string, FileType][]> => [],
	},
};

export const Uri = {
	joinPath: (base: { path: string }, ...parts: string[]) => Uri.file([base.path, ...parts].join('/')),
	file: (path: string) => ({ path, toString: () => `file://${path}` }),
};
