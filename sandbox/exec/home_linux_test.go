package exec

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeHome builds a home directory with toolchains (an executable on
// PATH under ~/.local/bin, a rustup-style ~/.cargo/bin, ~/go/bin, a pyenv
// root) and secrets beside them.
func fakeHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(execWorkspace(t), "home")
	files := map[string]string{
		".local/bin/mytool":        "#!/bin/sh\necho mytool-ok\n",
		".cargo/bin/fakecargo":     "#!/bin/sh\necho fakecargo-ok\n",
		"go/bin/gotool":            "#!/bin/sh\necho gotool-ok\n",
		".pyenv/shims/fakepy":      "#!/bin/sh\necho fakepy-ok $PYENV_ROOT\n",
		".ssh/id_rsa":              "SECRET-ssh\n",
		".aws/credentials":         "SECRET-aws\n",
		".config/gh/hosts.yml":     "SECRET-gh\n",
		".cargo/credentials.toml":  "SECRET-cargo\n",
		".bash_history":            "SECRET-history\n",
		"go/src/other/main.go":     "SECRET-other-project\n",
		"projects/other/README.md": "SECRET-project\n",
	}
	for name, body := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// TestExec_S7_HomeToolchains (issue #10 item 13): tools installed under
// the home directory run from PATH, read-only; the home's secrets, other
// projects and its listing stay invisible, even when PATH names the home
// itself, a secret or the root.
func TestExec_S7_HomeToolchains(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	home := fakeHome(t)
	t.Setenv("HOME", home)
	for _, v := range toolchainHomes {
		t.Setenv(v.name, "") // the defaults under the fake home
	}
	t.Setenv("PATH", strings.Join([]string{
		home + "/.local/bin", home + "/.cargo/bin", home + "/go/bin", home + "/.pyenv/shims",
		home, home + "/.ssh", "/", "relative/bin", os.Getenv("PATH"),
	}, ":"))
	ws := execWorkspace(t)
	cmd := `mytool; fakecargo; gotool; fakepy
cat ` + home + `/.ssh/id_rsa ` + home + `/.aws/credentials ` + home + `/.config/gh/hosts.yml ` +
		home + `/.cargo/credentials.toml ` + home + `/.bash_history ` + home + `/go/src/other/main.go ` +
		home + `/projects/other/README.md
ls ` + home + `; echo x > ` + home + `/.local/bin/mytool; echo x > ` + home + `/.local/bin/new`
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws})
	for _, want := range []string{"mytool-ok", "fakecargo-ok", "gotool-ok", "fakepy-ok " + home + "/.pyenv"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q: stdout %q stderr %q", want, r.Stdout, r.Stderr)
		}
	}
	if strings.Contains(r.Stdout, "SECRET") || strings.Contains(r.Stdout, ".ssh") || strings.Contains(r.Stdout, "projects") {
		t.Errorf("a secret leaked: %q", r.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".local/bin/mytool")); !strings.Contains(string(b), "mytool-ok") {
		t.Errorf("a toolchain file was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, ".local/bin/new")); err == nil {
		t.Error("the command wrote into a toolchain directory")
	}
}

// TestExec_S7_RealToolchains (issue #10 item 13): this machine's own
// toolchains under HOME (pyenv's python3 shim, rustup's cargo) run in the
// sandbox; the real ~/.ssh stays unreadable.
func TestExec_S7_RealToolchains(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	var checks []string
	for tool, cmd := range map[string]string{"python3": "python3 -c 'print(6*7)'", "cargo": "cargo --version"} {
		p, err := osexec.LookPath(tool)
		if err != nil || !strings.HasPrefix(p, home+"/") {
			t.Logf("%s is not installed under %s (%q), not tried", tool, home, p)
			continue
		}
		checks = append(checks, cmd)
	}
	if len(checks) == 0 {
		t.Skip("no toolchain under the home directory here")
	}
	ws := execWorkspace(t)
	for _, cmd := range checks {
		r := runSandboxed(t, &Spec{Command: cmd, Dir: ws, Timeout: 60e9})
		if r.ExitCode != 0 || r.Stdout == "" {
			t.Errorf("%s: exit %d stdout %q stderr %q", cmd, r.ExitCode, r.Stdout, r.Stderr)
		}
	}
	r := runSandboxed(t, &Spec{Command: "ls " + home + "/.ssh " + home, Dir: ws})
	if r.ExitCode == 0 {
		t.Errorf("the real home is listable: %q", r.Stdout)
	}
}

// TestHomeToolchainAccess (S7): which PATH entries and roots are granted.
func TestHomeToolchainAccess(t *testing.T) {
	home := fakeHome(t)
	ws := filepath.Join(home, "projects", "mine")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	// A symlinked PATH entry into a secret is refused by its target.
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, ".local", "sshbin")); err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{
		home + "/.local/bin", "/", home, filepath.Dir(home), home + "/.ssh", home + "/.config",
		home + "/projects", home + "/.local/sshbin", "bin", "", "/usr/bin",
	}, ":")
	env := map[string]string{"RUSTUP_HOME": home + "/.ssh"}
	a := homeToolchainAccess(home, path, ws, os.TempDir(), func(k string) string { return env[k] })
	want := []string{home + "/.local/bin", "/usr/bin", home + "/.pyenv", home + "/.cargo/bin", home + "/go/bin"}
	for _, w := range want {
		if !slices.Contains(a.read, w) {
			t.Errorf("%s not granted: %v", w, a.read)
		}
	}
	for _, r := range a.read {
		for _, bad := range []string{"/", home, filepath.Dir(home), home + "/.ssh", home + "/.config", home + "/projects", home + "/.cargo"} {
			if r == bad {
				t.Errorf("granted %s", r)
			}
		}
	}
	for _, kv := range a.env {
		if kv[0] == "RUSTUP_HOME" {
			t.Errorf("RUSTUP_HOME pointed into a secret: %v", kv)
		}
		if kv[0] == "PYENV_ROOT" && kv[1] != home+"/.pyenv" {
			t.Errorf("PYENV_ROOT = %q", kv[1])
		}
	}
}

// TestExec_I16_CachedToolchainSwappedForSymlink (S7, issue 16): a runner
// resolves the toolchain roots once and reuses them; a $PATH directory
// swapped for a symlink to a secret after the first command grants
// nothing to the next one, anywhere in its path.
func TestExec_I16_CachedToolchainSwappedForSymlink(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	home := fakeHome(t)
	t.Setenv("HOME", home)
	for _, v := range toolchainHomes {
		t.Setenv(v.name, "")
	}
	outside := execWorkspace(t) // neither the home nor the workspace
	for _, dir := range []string{"opt/bin", "lib/bin"} {
		p := filepath.Join(outside, dir, "sometool")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho sometool-ok\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", outside+"/opt/bin:"+outside+"/lib/bin:"+os.Getenv("PATH"))
	r := New(&Options{Helper: testHelper})
	defer r.Close()
	ws := execWorkspace(t)
	if res := runWith(t, r, &Spec{Command: "sometool", Dir: ws}); !strings.Contains(res.Stdout, "sometool-ok") {
		t.Fatalf("the toolchain did not run: %+v", res)
	}
	// The last component, and a parent, become symlinks to secrets.
	swap := func(dir, target string) {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, dir); err != nil {
			t.Fatal(err)
		}
	}
	swap(filepath.Join(outside, "opt/bin"), filepath.Join(home, ".ssh"))
	swap(filepath.Join(outside, "lib"), filepath.Join(home, ".aws"))
	if err := os.Mkdir(filepath.Join(home, ".aws/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".aws/bin/creds"), []byte("SECRET-aws-bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runWith(t, r, &Spec{Command: "cat " + outside + "/opt/bin/id_rsa " + outside + "/lib/bin/creds; ls " + outside + "/opt/bin", Dir: ws})
	if strings.Contains(res.Stdout, "SECRET") || strings.Contains(res.Stdout, "id_rsa") {
		t.Errorf("a secret showed through a swapped toolchain directory: %q", res.Stdout)
	}
	if res.ExitCode == 0 {
		t.Errorf("reading through the swapped directories succeeded: %+v", res)
	}
}

// TestToolchainCache_I16_ReusedThenExpires (S7, issue 16): a result is
// reused for commands in quick succession, and a toolchain installed
// meanwhile is granted once toolchainCacheTTL has passed.
func TestToolchainCache_I16_ReusedThenExpires(t *testing.T) {
	home := fakeHome(t)
	clock := time.Unix(1e9, 0)
	c := toolchainCache{now: func() time.Time { return clock }}
	getenv := func(string) string { return "" }
	get := func() []string { return c.get(home, "/usr/bin", "/nonexistent/ws", os.TempDir(), getenv).read }
	if slices.Contains(get(), home+"/.rustup") {
		t.Fatal("~/.rustup granted before it exists")
	}
	if err := os.MkdirAll(filepath.Join(home, ".rustup"), 0o755); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(toolchainCacheTTL / 2)
	if slices.Contains(get(), home+"/.rustup") {
		t.Error("the result was not reused within the TTL")
	}
	clock = clock.Add(toolchainCacheTTL)
	if !slices.Contains(get(), home+"/.rustup") {
		t.Errorf("a toolchain installed meanwhile is not granted after the TTL: %v", get())
	}
}
