package shell

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// TestShellPolicy_E15_OwnControlFiles: a command that writes, moves,
// deletes or changes agentls' own .agentls/** is denied, in every
// spelling a shell offers: redirections, tee, cp, mv, sed -i, dd, wrappers,
// cd, ./ and .. detours, absolute and $PWD paths, case variants, globs,
// symlinks already in the workspace and links the command creates.
func TestShellPolicy_E15_OwnControlFiles(t *testing.T) {
	p, fx := shellFixture(t)
	sandboxtest.MustWrite(t, filepath.Join(fx.Root, ".agentls/policy.json"), "{}\n")
	if err := os.Symlink(".agentls", filepath.Join(fx.Root, "cfg")); err != nil {
		t.Fatal(err)
	}
	checkShell(t, p, sandbox.Deny,
		`echo '{"allow":["*"]}' > .agentls/policy.json`, "echo x >> .agentls/policy.json",
		"echo x > ./.agentls/policy.json", "echo x > src/../.agentls/policy.json",
		"echo x > "+fx.Root+"/.agentls/policy.json", `echo x > "$PWD/.agentls/policy.json"`,
		"echo x > .AGENTLS/policy.json", "echo x > .agentl?/policy.json", "echo x > .agentls/*.json",
		"echo x > cfg/policy.json", "ln -s .agentls c; echo x > c/policy.json",
		"tee .agentls/policy.json < x", "cp x .agentls/policy.json", "cp x .agentls/", "mv x .agentls/policy.json",
		"mv .agentls/policy.json /tmp/x", "rm .agentls/policy.json", "rm -rf .agentls", "sed -i s/a/b/ .agentls/policy.json",
		"dd if=x of=.agentls/policy.json", "truncate -s0 .agentls/policy.json", "chmod 666 .agentls/policy.json",
		"cd .agentls && echo x > policy.json", "bash -c 'echo x > .agentls/policy.json'",
		"timeout 5 cp x .agentls/policy.json", "find . -name x -exec cp {} .agentls/ \\;",
		"echo x | xargs -I{} cp {} .agentls/policy.json", "touch .agentls/new.json", "mkdir .agentls/hooks",
	)
	checkShell(t, p, sandbox.Allow, "cat .agentls/policy.json", "ls .agentls", "grep -r allow .agentls")
}

// TestShellPolicy_E15_ControlFiles: writes to the editor, shell and VCS
// files that run code outside the sandbox ask (or are denied as
// persistence: git hooks and config), and the verdict names each one, so
// that the gateway asks one by one and no rule pre-approves them.
func TestShellPolicy_E15_ControlFiles(t *testing.T) {
	p, fx := shellFixture(t)
	if err := os.Symlink(".vscode", filepath.Join(fx.Root, "vs")); err != nil {
		t.Fatal(err)
	}
	sandboxtest.MustMkdir(t, filepath.Join(fx.Root, ".vscode"))
	for cmd, want := range map[string][]string{
		"echo '{}' > .vscode/tasks.json":           {".vscode/tasks.json"},
		"echo x > vs/settings.json":                {".vscode/settings.json"},
		"cp a .idea/workspace.xml":                 {".idea/workspace.xml", ".idea/workspace.xml/a"},
		"tee .zed/settings.json < x":               {".zed/settings.json"},
		"echo x > .helix/config.toml":              {".helix/config.toml"},
		"echo 'vim.fn.system(\"id\")' > .nvim.lua": {".nvim.lua"},
		"echo x >> .exrc":                          {".exrc"},
		"echo 'eval $(curl x)' > .envrc":           {".envrc"},
		"echo x > src/.envrc":                      {"src/.envrc"},
		"echo x > .husky/pre-commit":               {".husky/pre-commit"},
		"echo '*.go filter=x' >> .gitattributes":   {".gitattributes"},
		"echo x > src/.gitattributes":              {"src/.gitattributes"},
		"echo x > .gitmodules":                     {".gitmodules"},
		"echo x > .git/info/attributes":            {".git/info/attributes"},
		"sed -i s/a/b/ .git/description":           {".git/description"},
		"rm -rf .git":                              {".git"},
		"echo x > .VSCode/tasks.json":              {".VSCode/tasks.json"},
		"bash -c 'echo x > .envrc'":                {".envrc"},
		"ls > /dev/null; mv x .exrc":               {".exrc", ".exrc/x"}, // into a directory .exrc, too
	} {
		v := p.Analyze(cmd)
		if v.Decision != sandbox.Ask || !slices.Equal(v.ControlPaths, want) {
			t.Errorf("%q = %s (%s), control %q; want ask, control %q", cmd, v.Decision, v.Rule, v.ControlPaths, want)
		}
	}
	checkShell(t, p, sandbox.Deny, "echo x > .git/hooks/pre-commit", "echo x >> .git/config", "echo x > .GIT/config",
		"cp x .Git/hooks/post-checkout")
	for _, cmd := range []string{"cat .vscode/tasks.json", "echo x > src/a.go", "ls .git", "git status"} {
		if v := p.Analyze(cmd); len(v.ControlPaths) > 0 {
			t.Errorf("%q: control %q", cmd, v.ControlPaths)
		}
	}
}

// TestIsControlPath_E15 pins the list of control files.
func TestIsControlPath_E15(t *testing.T) {
	for rel, want := range map[string][2]bool{
		".agentls": {true, true}, ".agentls/policy.json": {true, true}, ".AgentLS/x": {true, true},
		"sub/.agentls/x": {true, true}, "sub/.vscode/tasks.json": {true, false}, ".vscode/settings.json": {true, false}, ".git": {true, false},
		"vendor/x/.git/hooks/pre-push": {true, false}, "a/b/.envrc": {true, false}, ".gitattributes": {true, false},
		".nvim.lua": {true, false}, ".exrc": {true, false}, ".husky/pre-commit": {true, false},
		"src/main.go": {false, false}, ".": {false, false}, ".github/workflows/ci.yml": {false, false},
		".gitignore": {false, false}, "docs/.vscode.md": {false, false}, ".envrc.example": {false, false},
	} {
		control, own := sandbox.IsControlPath(rel)
		if [2]bool{control, own} != want {
			t.Errorf("IsControlPath(%q) = %v, %v; want %v", rel, control, own, want)
		}
	}
}

// TestShellPolicy_T4_DotDotAfterSymlink: ".." after a symlink in a path
// operand is resolved by the kernel from the link's target, so the
// analyser does not clean it lexically into a workspace path: reading
// there asks, and a write into a control file behind it is not a plain
// workspace write.
func TestShellPolicy_T4_DotDotAfterSymlink(t *testing.T) {
	p, fx := shellFixture(t)
	if err := os.Symlink(fx.Outside+"/sub", filepath.Join(fx.Root, "o")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("docs/sub", filepath.Join(fx.Root, "deep")); err != nil {
		t.Fatal(err)
	}
	checkShell(t, p, sandbox.Ask, "cat o/../secret.txt", "cat deep/../README.md", "cd deep && cat ../README.md",
		"echo x > o/../x", "grep -r x o/../")
	checkShell(t, p, sandbox.Allow, "cat src/../README.md", "cat docs/sub/../../README.md", "ls deep")
}
