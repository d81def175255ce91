package exec

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// copyHelper copies the built helper binary into a fresh directory.
func copyHelper(t *testing.T, mode os.FileMode) string {
	t.Helper()
	data, err := os.ReadFile(testHelper)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "agentls-sandbox")
	if err := os.WriteFile(p, data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

// debugLog returns a logger that writes to the returned buffer.
func debugLog() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), &b
}

// helperExe returns the file that a runner's next warm helper executes.
func helperExe(t *testing.T, r *Runner) os.FileInfo {
	t.Helper()
	r.waitWarm()
	r.sys.warm.mu.Lock()
	w := r.sys.warm.slot
	r.sys.warm.mu.Unlock()
	if w == nil {
		t.Fatal("no warm helper")
	}
	fi, err := os.Stat("/proc/" + strconv.Itoa(w.h.pid) + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// mustRun runs echo through r and checks that it worked.
func mustRun(t *testing.T, r *Runner) {
	t.Helper()
	if res := runWith(t, r, &Spec{Command: "echo ran", Dir: execWorkspace(t)}); res.Stdout != "ran\n" || res.ExitCode != 0 {
		t.Fatalf("echo ran: %+v", res)
	}
}

// TestHelper_I16_RunsTheHelperBinary: the shared test runner (and so
// every sandbox test) starts cmd/agentls-sandbox, not the test binary,
// with the same layers as the self re-exec.
func TestHelper_I16_RunsTheHelperBinary(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	if testRunner.Layers(); testRunner.sys.bin == nil {
		t.Fatal("the shared runner does not use the helper binary")
	}
	r := New(&Options{Helper: testHelper, Prestart: true})
	defer r.Close()
	want, err := os.Stat(testHelper)
	if err != nil {
		t.Fatal(err)
	}
	if got := helperExe(t, r); !os.SameFile(got, want) {
		t.Errorf("the warm helper runs %v, not %s", got.Name(), testHelper)
	}
	// The helper is PID 1 of the command's own /proc.
	if res := runWith(t, r, &Spec{Command: "cat /proc/1/comm", Dir: execWorkspace(t)}); res.Stdout != helperComm+"\n" {
		t.Errorf("the helper is called %q in ps, want %q (%+v)", res.Stdout, helperComm, res)
	}
	self := New(nil)
	defer self.Close()
	if a, b := testRunner.Layers(), self.Layers(); !slices.Equal(a.Active, b.Active) || a.LandlockABI != b.LandlockABI {
		t.Errorf("layers with the helper binary %v (ABI %d), with the self re-exec %v (ABI %d)",
			a.Active, a.LandlockABI, b.Active, b.LandlockABI)
	}
}

// TestHelper_I16_SelfFallback: without Options.Helper the program
// re-executes itself, as before.
func TestHelper_I16_SelfFallback(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	r := New(&Options{Prestart: true})
	defer r.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.Stat(self)
	if err != nil {
		t.Fatal(err)
	}
	if got := helperExe(t, r); !os.SameFile(got, want) {
		t.Errorf("the warm helper runs %v, not the test binary", got.Name())
	}
	if r.sys.bin != nil {
		t.Error("a helper binary without Options.Helper")
	}
	mustRun(t, r)
}

// TestHelper_I16_FallsBackOnWrongHelper: a helper that answers with
// another version (a stale install; an old one that reports none) or not
// at all is not used: commands run in the self re-exec, and the debug
// log says why.
func TestHelper_I16_FallsBackOnWrongHelper(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	for name, script := range map[string]string{
		"other version": `echo '{"version":"agentls-sandbox/0"}' >&4`,
		"no version":    `echo '{}' >&4`,
		"no answer":     `exit 0`,
		"garbage":       `echo 'hello' >&4`,
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "agentls-sandbox")
			if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			log, buf := debugLog()
			r := New(&Options{Helper: p, Logger: log})
			defer r.Close()
			mustRun(t, r)
			if r.sys.bin != nil {
				t.Fatal("the wrong helper is in use")
			}
			if !strings.Contains(buf.String(), "Sandbox helper binary not used") {
				t.Errorf("no debug log of the fallback: %q", buf.String())
			}
		})
	}
}

// TestHelper_I16_RefusesUnsafeFile: a helper binary that someone other
// than its owner could have changed, or that is not a regular file, is
// refused before it runs; the command runs in the self re-exec.
func TestHelper_I16_RefusesUnsafeFile(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	cases := map[string]string{
		"group-writable": copyHelper(t, 0o775),
		"world-writable": copyHelper(t, 0o757),
		"directory":      t.TempDir(),
		"missing":        filepath.Join(t.TempDir(), "agentls-sandbox"),
	}
	if os.Geteuid() == 0 {
		p := copyHelper(t, 0o755)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases["another user's"] = p
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			log, buf := debugLog()
			r := New(&Options{Helper: p, Logger: log})
			defer r.Close()
			mustRun(t, r)
			if r.sys.bin != nil {
				t.Fatal("the unsafe helper is in use")
			}
			if !strings.Contains(buf.String(), "Sandbox helper binary not used") {
				t.Errorf("no debug log of the fallback: %q", buf.String())
			}
		})
	}
	// The same binary with a safe mode is used: the refusals above are
	// the mode's.
	r := New(&Options{Helper: copyHelper(t, 0o755), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer r.Close()
	if r.Layers(); r.sys.bin == nil {
		t.Error("a safe copy of the helper is not used")
	}
}

// TestHelper_I16_SwapAfterOpen: the helper is opened once; a file put in
// its place afterwards never runs.
func TestHelper_I16_SwapAfterOpen(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	p := copyHelper(t, 0o755)
	orig, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	r := New(&Options{Helper: p, Prestart: true})
	defer r.Close()
	r.waitWarm() // the probe has opened and checked the helper
	if r.sys.bin == nil {
		t.Fatal("the helper is not in use")
	}
	evil := p + ".new"
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho swapped >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(evil, p); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the warm helper, then one started after the swap
		mustRun(t, r)
		if got := helperExe(t, r); !os.SameFile(got, orig) {
			t.Fatal("a helper started after the swap runs the new file")
		}
	}
	st := helperExe(t, r).Sys().(*syscall.Stat_t)
	if st.Nlink != 0 {
		t.Errorf("the helper's inode still has %d links; want the replaced, unlinked one", st.Nlink)
	}
}

// TestHelper_I16_InitCompilesNothing: the helper starts once per command,
// so the package init of our packages in it builds nothing (the sandbox
// package compiled two regular expressions there: 84 allocations, 0.16 ms
// of each command). Counted with GODEBUG=inittrace=1 on the built helper.
func TestHelper_I16_InitCompilesNothing(t *testing.T) {
	cmd := osexec.Command(testHelper)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput() // run by hand it refuses (exit 2)
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/agentls/agentls/") {
			continue
		}
		seen++
		if n, _ := strconv.Atoi(f[len(f)-2]); n > 10 {
			t.Errorf("init of %s in the helper allocates %d times, want ≤ 10: %s", f[1], n, line)
		}
	}
	if seen < 2 {
		t.Fatalf("inittrace shows %d of our packages in the helper, want 2:\n%s", seen, out)
	}
}
