package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// The attacks of issue 22 item 5 against real git: a repository whose
// configuration makes a read-only git command run a program that creates
// PWNED. Each scenario is first decided by the analysis, and every
// command it allows is then run with git as the sandbox runs it (no
// system or global configuration, its forced keys, no pager, no tty):
// PWNED must not appear.

// gitEnv is the environment sandbox/exec gives a command, for git.
func gitEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "LC_ALL=C",
		"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_COUNT=4",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false", "GIT_CONFIG_KEY_1=core.pager",
		"GIT_CONFIG_VALUE_1=cat", "GIT_CONFIG_KEY_2=core.hooksPath", "GIT_CONFIG_VALUE_2=/dev/null",
		"GIT_CONFIG_KEY_3=credential.helper", "GIT_CONFIG_VALUE_3="}
}

// missingObject is an object id no repository of the tests holds.
const missingObject = "1234567890123456789012345678901234567890"

// gitScenario is a repository set up by shell lines, and read-only git
// commands to decide and run in it.
type gitScenario struct {
	name  string
	setup string   // run in the new repository; $W is the workspace
	cmds  []string // decided by the analysis, run when allowed
	asks  []string // the analysis must not allow these
	allow []string // nor ask for these (no over-blocking)
	runs  string   // run regardless: must create PWNED (the attack is real)
}

var gitScenarios = []gitScenario{
	{name: "empty .git walks up", setup: `git config diff.external "touch $W/PWNED #" && mkdir -p sub/.git && echo y > sub/y`,
		cmds: []string{"git -C sub diff", "cd sub && git diff", "git -C sub log -p", "git -C sub status"},
		asks: []string{"git -C sub diff", "cd sub && git diff"}, runs: "git -C sub diff"},
	{name: ".git with a bad HEAD", setup: `git config diff.external "touch $W/PWNED #" && mkdir -p sub/.git/objects sub/.git/refs && echo junk > sub/.git/HEAD`,
		cmds: []string{"git -C sub diff"}, asks: []string{"git -C sub diff"}, runs: "git -C sub diff"},
	{name: ".git with objects not a directory", setup: `git config diff.external "touch $W/PWNED #" && mkdir -p sub/.git/refs && echo 'ref: refs/heads/x' > sub/.git/HEAD && touch sub/.git/objects`,
		cmds: []string{"git -C sub diff"}, asks: []string{"git -C sub diff"}, runs: "git -C sub diff"},
	{name: "a valid nested repository stops the walk", setup: `git config diff.external "touch $W/PWNED #" && git init -q sub`,
		cmds: []string{"git -C sub diff", "git -C sub status"}, allow: []string{"git -C sub diff", "git -C sub status"}},
	{name: "promisor remote with an ext:: URL", setup: `git config remote.origin.url "ext::sh -c touch% $W/PWNED" && git config remote.origin.promisor true && git config protocol.ext.allow always`,
		cmds: []string{"git show " + missingObject, "git cat-file -p " + missingObject, "git log -p", "git diff " + missingObject},
		asks: []string{"git show " + missingObject}, runs: "git show " + missingObject},
	{name: "partial clone over ssh", setup: `git config core.repositoryformatversion 1 && git config extensions.partialclone origin && git config remote.origin.url ssh://h/r && git config core.sshCommand "touch $W/PWNED #"`,
		cmds: []string{"git show " + missingObject}, asks: []string{"git show " + missingObject}, runs: "git show " + missingObject},
	{name: "partial clone filter and uploadpack", setup: `git config remote.origin.url file:///nonexistent && git config remote.origin.partialclonefilter blob:none && git config remote.origin.uploadpack "touch $W/PWNED #"`,
		cmds: []string{"git show " + missingObject}, asks: []string{"git show " + missingObject}, runs: "git show " + missingObject},
	{name: "insteadOf rewrites to ext::", setup: `git config "url.ext::sh -c touch% $W/PWNED #.insteadOf" https://x/ && git config remote.origin.url https://x/r && git config remote.origin.promisor true && git config protocol.allow always`,
		cmds: []string{"git show " + missingObject}, asks: []string{"git show " + missingObject}, runs: "git show " + missingObject},
	{name: "man viewer", setup: `git config man.viewer evil && git config man.evil.cmd "touch $W/PWNED #"`,
		cmds: []string{"git help log", "git log --help", "git --help log", "git help -m log", "git help", "git help -a", "git log -h"},
		asks: []string{"git help log", "git log --help", "git --help log"}, runs: "git help log"},
	{name: "web browser", setup: `git config help.format web && git config help.browser evil && git config browser.evil.cmd "touch $W/PWNED #"`,
		cmds: []string{"git help log", "git help -w log", "git show --help"}, asks: []string{"git help -w log"}},
	{name: "keys read-only git never runs", setup: `for k in core.editor sequence.editor core.pager pager.log pager.show pager.diff alias.log alias.show core.askPass credential.helper uploadpack.packObjectsHook core.sshCommand core.gitProxy; do git config $k "touch $W/PWNED #"; done`,
		cmds:  []string{"git log -p", "git show HEAD", "git status", "git diff", "git show " + missingObject, "git var GIT_EDITOR", "git log", "git -p log"},
		allow: []string{"git log -p", "git show HEAD", "git status", "git diff", "git show " + missingObject, "git var GIT_EDITOR"}},
	{name: "include in an included file", setup: `printf '[include]\n\tpath = two.cfg\n' > .git/one.cfg && printf '[diff]\n\texternal = touch %s/PWNED #\n' "$W" > .git/two.cfg && git config include.path one.cfg`,
		cmds: []string{"git diff", "git log -p"}, asks: []string{"git diff"}, runs: "git diff"},
}

// gitWorkspace makes a repository with a commit and a changed file.
func gitWorkspace(t *testing.T, bash string) string {
	t.Helper()
	dir := bashWorkspace(t, "")
	runIn(bash, dir, "git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m0 && "+
		"git add README.md && git -c user.email=a@b -c user.name=a commit -q -m1 && echo more >> README.md",
		gitEnv(dir), 10*time.Second)
	if _, err := os.Stat(filepath.Join(dir, ".git/HEAD")); err != nil {
		t.Fatalf("git init: %v", err)
	}
	return dir
}

// TestGitRepo_S8_RealGit decides each scenario's commands and runs the
// allowed ones with real git: none may run the configured program.
func TestGitRepo_S8_RealGit(t *testing.T) {
	bash := lookBash(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("the real-git check of S8 needs git: %v", err)
	}
	for _, sc := range gitScenarios {
		t.Run(sc.name, func(t *testing.T) {
			dir := gitWorkspace(t, bash)
			runIn(bash, dir, "W="+dir+"; "+sc.setup, gitEnv(dir), 10*time.Second)
			p := &Policy{Root: dir, Home: dir + "/home"}
			checkShell(t, p, sandbox.Ask, sc.asks...)
			checkShell(t, p, sandbox.Allow, sc.allow...)
			for _, cmd := range sc.cmds {
				if p.Analyze(cmd).Decision == sandbox.Allow {
					runGitChecked(t, bash, dir, cmd, false)
				}
			}
			if sc.runs != "" {
				runGitChecked(t, bash, dir, sc.runs, true)
			}
		})
	}
}

// runGitChecked runs cmd as the sandbox would and checks whether it ran
// the configured program (want: it must; otherwise it must not).
func runGitChecked(t *testing.T, bash, dir, cmd string, want bool) {
	t.Helper()
	marker := filepath.Join(dir, "PWNED")
	runIn(bash, dir, cmd+" </dev/null >/dev/null 2>&1", gitEnv(dir), 10*time.Second)
	_, err := os.Stat(marker)
	switch ran := err == nil; {
	case ran && !want:
		t.Errorf("%q is allowed, but git ran the repository's program", cmd)
	case !ran && want:
		t.Errorf("%q: the attack did not run the program: the scenario tests nothing", cmd)
	}
	os.Remove(marker)
}

// TestGitRepo_S8_EmptyDotGitWalksUp: git walks past a .git that is not a
// git directory (empty, a bad HEAD, no objects/ or refs/) to the
// repository above, whose diff.external then runs: the analysis finds
// the same repository (before, it stopped at the empty .git and allowed).
func TestGitRepo_S8_EmptyDotGitWalksUp(t *testing.T) {
	p, fx := repoFixture(t, "[diff]\n\texternal = ./evil.sh\n")
	mk := func(dir string, files map[string]string) {
		sandboxtest.MustMkdir(t, filepath.Join(fx.Root, dir, ".git"))
		for name, text := range files {
			sandboxtest.MustWrite(t, filepath.Join(fx.Root, dir, ".git", name), text)
		}
	}
	mk("empty", nil)
	mk("badhead", map[string]string{"HEAD": "junk\n", "objects/x": "", "refs/x": ""})
	mk("noobjects", map[string]string{"HEAD": "ref: refs/heads/main\n", "refs/x": ""})
	mk("shorthash", map[string]string{"HEAD": "1234abcd\n", "objects/x": "", "refs/x": ""})
	for _, d := range []string{"empty", "badhead", "noobjects", "shorthash"} {
		checkShell(t, p, sandbox.Ask, "git -C "+d+" diff", "cd "+d+" && git log -p")
	}
	mk("valid", map[string]string{"HEAD": "ref: refs/heads/main\n", "objects/x": "", "refs/x": ""})
	mk("detached", map[string]string{"HEAD": missingObject + "\n", "objects/x": "", "refs/x": ""})
	checkShell(t, p, sandbox.Allow, "git -C valid diff", "git -C detached diff")
	_, fx2 := repoFixture(t, "[core]\n\thooksPath = ws/hooks\n")
	sandboxtest.MustMkdir(t, filepath.Join(fx2.Root, "ws/.git"))
	if got := GitTargets(filepath.Join(fx2.Root, "ws")); !slices.Contains(got, "hooks") {
		t.Errorf("GitTargets of a workspace with an empty .git: %q, want the parent repository's hooks", got)
	}
}

// TestGitRepo_S8_FetchKeys: the keys that make read-only git fetch a
// missing object, and so run the transport's programs, ask.
func TestGitRepo_S8_FetchKeys(t *testing.T) {
	for _, cfg := range []string{
		"[remote \"origin\"]\n\tpromisor = true\n", "[extensions]\n\tpartialClone = origin\n",
		"[remote \"o\"]\n\tpartialclonefilter = blob:none\n", "[remote \"o\"]\n\turl = EXT::sh -c id\n",
		"[protocol]\n\tallow = always\n", "[protocol \"ext\"]\n\tallow = user\n",
		"[url \"ext::sh -c id #\"]\n\tinsteadOf = https://\n",
	} {
		p, _ := repoFixture(t, cfg)
		checkShell(t, p, sandbox.Ask, "git show "+missingObject)
	}
	p, _ := repoFixture(t, "[remote \"origin\"]\n\turl = https://x/r\n[protocol \"ext\"]\n\tallow = never\n"+
		"[core]\n\tsshCommand = ssh -i k\n\teditor = vim\n[alias]\n\tlg = log\n")
	checkShell(t, p, sandbox.Allow, "git show "+missingObject, "git log -p")
}

// TestGitRepo_S8_HelpOpensViewer: git help with a page, git CMD --help
// and git --help CMD run the viewer the configuration names: they ask;
// lists and usage do not.
func TestGitRepo_S8_HelpOpensViewer(t *testing.T) {
	p, _ := shellFixture(t)
	checkShell(t, p, sandbox.Ask, "git help log", "git help -m log", "git help -w log", "git help -i log",
		"git log --help", "git --help log", "git -C src help diff", "git status --help")
	checkShell(t, p, sandbox.Allow, "git help", "git help -a", "git help -g", "git --help", "git log -h", "git -h")
}
