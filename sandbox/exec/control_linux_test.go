package exec

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// controlFixture is a workspace with a .git directory (config, a hook),
// existing .vscode and .agentls directories and a .gitattributes file, a
// src directory and a top-level file; .envrc, .idea, .zed, .helix,
// .husky, .nvim.lua, .exrc and .gitmodules are missing.
func controlFixture(t *testing.T) string {
	t.Helper()
	ws := execWorkspace(t)
	for name, body := range map[string]string{
		".git/config":             "[core]\n\tbare = false\n",
		".git/HEAD":               "ref: refs/heads/main\n",
		".git/hooks/pre-push":     "#!/bin/sh\n",
		".vscode/extensions.json": "{}\n",
		".agentls/policy.json":    "{}\n",
		".gitattributes":          "* text=auto\n",
		"src/main.go":             "package main\n",
		"notes.txt":               "notes\n",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// treeHash hashes the names, types and contents under dir (or of the
// file dir), so that any change shows.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "err %s %v\n", p, err)
			return nil
		}
		fmt.Fprintf(h, "%s %v\n", p, d.Type())
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			h.Write(b)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			fmt.Fprintf(h, "-> %s\n", l)
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}

// controlAttacks are what a hostile test in the repository would do to
// get code run outside the sandbox: plant a hook or an fsmonitor, change
// the editor's settings, create the files that shells and editors load,
// and move the protected paths out of the way first.
const controlAttacks = `
echo 'touch pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
printf '[core]\n\tfsmonitor = touch pwned\n' >> .git/config
rm -f .git/config; mv .git .git-old; rm -rf .git; ln -s src .git2
echo '{"terminal.integrated.shell.linux":"/tmp/x"}' > .vscode/settings.json
echo '{}' > .agentls/policy.json; rm -rf .agentls
echo 'export PATH=/evil' > .envrc; echo 'vim.cmd("!touch pwned")' > .nvim.lua; echo '!touch pwned' > .exrc
mkdir .idea .zed .helix .husky; echo '[submodule "x"]' > .gitmodules; echo '* filter=evil' >> .gitattributes
echo x > src/vs; mv src/vs .IDEA; ln -s src/vs .zed; cp -r src .helix
echo changed > notes.txt && echo top-file-ok
mkdir -p src/new/dir && echo inside > src/new/dir/f && echo subdir-ok
`

// checkControl runs controlAttacks in a fresh fixture with approved as
// given and checks the outcome; missingToo says whether control files
// that did not exist must still not exist afterwards.
func checkControl(t *testing.T, missingToo bool) {
	t.Helper()
	ws := controlFixture(t)
	protected := []string{".git", ".vscode", ".agentls", ".gitattributes"}
	before := map[string]string{}
	for _, p := range protected {
		before[p] = treeHash(t, filepath.Join(ws, p))
	}
	r := runSandboxed(t, &Spec{Command: controlAttacks, Dir: ws})
	for _, p := range protected {
		if treeHash(t, filepath.Join(ws, p)) != before[p] {
			t.Errorf("%s changed: stdout %q stderr %q", p, r.Stdout, r.Stderr)
		}
	}
	if !strings.Contains(r.Stdout, "top-file-ok") || !strings.Contains(r.Stdout, "subdir-ok") {
		t.Errorf("ordinary writes failed: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "src/new/dir/f")); string(b) != "inside\n" {
		t.Errorf("src/new/dir/f = %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Error("something ran a planted program")
	}
	if missingToo {
		for _, p := range []string{".envrc", ".nvim.lua", ".exrc", ".idea", ".IDEA", ".zed", ".helix", ".husky",
			".gitmodules", ".git-old", ".git2"} {
			if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
				t.Errorf("the command created %s", p)
			}
		}
	}
	if !strings.Contains(r.Stderr, controlNote) {
		t.Errorf("stderr lacks the note on refused writes: %q", r.Stderr)
	}
}

// TestExec_S6_ControlFilesReadOnly (S6, E15, issue #10 item 1): a command
// that runs without asking cannot write, remove, rename or create .git and
// the other control files, by either layer alone; it writes the rest of
// the workspace. The user-approved command can.
func TestExec_S6_ControlFilesReadOnly(t *testing.T) {
	t.Run("all layers", func(t *testing.T) {
		checkControl(t, testRunner.Layers().Has(LayerLandlock))
	})
	t.Run("landlock alone", func(t *testing.T) {
		needSandboxLayers(t, LayerLandlock)
		withoutLayer(t, func(p *probeResult) { p.flags &^= unix.CLONE_NEWNS }, func() { checkControl(t, true) })
	})
	t.Run("mount namespace alone", func(t *testing.T) {
		needSandboxLayers(t, LayerMountNamespace)
		// Without Landlock nothing stops a command from creating a
		// missing control file; the existing ones stay read-only.
		withoutLayer(t, func(p *probeResult) { p.abi = 0 }, func() { checkControl(t, false) })
	})
	t.Run("approved", func(t *testing.T) {
		ws := controlFixture(t)
		r := runSandboxed(t, &Spec{Command: "printf '[user]\\n\\tname = a\\n' >> .git/config && echo > .envrc && mkdir .idea && echo ok",
			Dir: ws, UserApproved: true})
		if r.Stdout != "ok\n" {
			t.Errorf("an approved command could not write control files: %q %q", r.Stdout, r.Stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, ".git/config")); !strings.Contains(string(b), "name = a") {
			t.Errorf(".git/config = %q", b)
		}
	})
}

// TestExec_S6_ControlTargetsProtected (S6): where a control file leads is
// protected too: a symlinked .vscode whose target does not exist yet, a
// gitfile's git directory inside the workspace, and a hook that is a
// symlink into src.
func TestExec_S6_ControlTargetsProtected(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	ws := execWorkspace(t)
	for _, d := range []string{"src", "sub/gd/hooks", "other"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		".git":           "gitdir: sub/gd\n",
		"sub/gd/config":  "[core]\n",
		"sub/gd/HEAD":    "ref: refs/heads/main\n",
		"src/hook":       "#!/bin/sh\n",
		"sub/sibling.go": "package sub\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{".vscode": "src/vs", "sub/gd/hooks/pre-commit": "../../../src/hook"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	r := runSandboxed(t, &Spec{Dir: ws, Command: `mkdir -p src/vs && echo '{}' > src/vs/settings.json
echo 'fsmonitor = x' >> sub/gd/config; echo 'touch pwned' > src/hook; echo x > sub/gd/hooks/post-checkout
mv sub/gd sub/gd2; echo ok > sub/sibling.go && echo sibling-ok; echo ok > other/new.go && echo other-ok
echo x > src/new.go`})
	// src and sub lead to protected paths: like the top, nothing can be
	// added to them (src/new.go); their existing entries stay writable.
	for _, p := range []string{"src/vs", "sub/gd/hooks/post-checkout", "sub/gd2", "src/new.go"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("the command created %s", p)
		}
	}
	for name, body := range files {
		if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != body && name != "sub/sibling.go" {
			t.Errorf("%s changed to %q", name, b)
		}
	}
	if !strings.Contains(r.Stdout, "sibling-ok") || !strings.Contains(r.Stdout, "other-ok") {
		t.Errorf("ordinary writes failed: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
}

// withoutLayer runs f with the probe result changed by off, to test one
// layer without the others.
func withoutLayer(t *testing.T, off func(*probeResult), f func()) {
	t.Helper()
	p := testRunner.probe()
	flags, abi := p.flags, p.abi
	off(p)
	defer func() { p.flags, p.abi = flags, abi }()
	f()
}

// TestResolveTarget: symlinks are followed to the end, also dangling
// ones, with ".." taken after each link's own target; loops stop.
func TestResolveTarget(t *testing.T) {
	d := execWorkspace(t)
	for _, dir := range []string{"a/b", "x/y"} {
		if err := os.MkdirAll(filepath.Join(d, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"dangling": "a/missing/deeper",
		"chain":    "dangling",
		"viaLink":  "yl/../z", // yl is x/y, so this is x/z, not z
		"yl":       "x/y",
		"abs":      d + "/a/b",
		"loop1":    "loop2",
		"loop2":    "loop1",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(d, l)); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		"dangling":     "a/missing/deeper",
		"chain":        "a/missing/deeper",
		"viaLink":      "x/z",
		"abs":          "a/b",
		"abs/new":      "a/b/new",
		"yl/../a":      "x/a",
		"plain/file":   "plain/file",
		"a/b/../../yl": "x/y",
	} {
		if got := resolveTarget(d + "/" + in); got != filepath.Join(d, want) {
			t.Errorf("resolveTarget(%s) = %s, want %s", in, got, filepath.Join(d, want))
		}
	}
	if got := resolveTarget(filepath.Join(d, "loop1")); !strings.HasPrefix(got, d) {
		t.Errorf("loop: %s", got)
	}
}
