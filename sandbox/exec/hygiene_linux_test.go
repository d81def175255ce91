package exec

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExec_S6_InheritedFDsClosed (issue #10 item 5): a descriptor the
// server holds without O_CLOEXEC does not reach the command, which could
// otherwise read or write past Landlock; nor do the helper's own pipes.
func TestExec_S6_InheritedFDsClosed(t *testing.T) {
	outside := execWorkspace(t)
	secret := filepath.Join(outside, "secret.txt")
	target := filepath.Join(outside, "target.txt")
	for _, p := range []string{secret, target} {
		if err := os.WriteFile(p, []byte("TOP-SECRET\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rfd, err := syscall.Open(secret, syscall.O_RDONLY, 0) // no O_CLOEXEC: leaks into children
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(rfd)
	wfd, err := syscall.Open(target, syscall.O_WRONLY|syscall.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(wfd)
	ws := execWorkspace(t)
	cmd := fmt.Sprintf(`cat <&%d; echo pwned >&%d; ls /proc/self/fd | tr '\n' ' '`, rfd, wfd)
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws})
	if strings.Contains(r.Stdout, "TOP-SECRET") {
		t.Errorf("read the server's descriptor %d: %q", rfd, r.Stdout)
	}
	if b, _ := os.ReadFile(target); string(b) != "TOP-SECRET\n" {
		t.Errorf("wrote through the server's descriptor %d: %q", wfd, b)
	}
	// ls sees 0, 1, 2 and the directory it reads (3).
	if got := strings.TrimSpace(r.Stdout); got != "0 1 2 3" {
		t.Errorf("the command's descriptors: %q (stderr %q)", got, r.Stderr)
	}
}

// TestExec_S6_OwnProc (issue #10 item 6): the command's /proc shows its
// own processes only, not another process's secret command line.
func TestExec_S6_OwnProc(t *testing.T) {
	needSandboxLayers(t, LayerProcfs)
	host := osexec.Command("/bin/sh", "-c", "sleep 30", "SECRET-xyz-argv")
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer host.Wait()
	defer host.Process.Kill()
	ws := execWorkspace(t)
	r := runSandboxed(t, &Spec{Command: fmt.Sprintf(`cat /proc/*/cmdline | tr '\0' ' '; ps -ef; ls /proc/%d/ 2>&1 | head -1; ls -d /proc/[0-9]* | wc -l`,
		host.Process.Pid), Dir: ws})
	if strings.Contains(r.Stdout, "SECRET-xyz") || strings.Contains(r.Stdout, "sleep 30") {
		t.Errorf("a host process is visible: %q", r.Stdout)
	}
	if !strings.Contains(r.Stdout, "cat /proc/") {
		t.Errorf("the command does not see itself: %q %q", r.Stdout, r.Stderr)
	}
	t.Logf("stdout %q stderr %q", r.Stdout, r.Stderr)
}

// TestExec_S6_PerWorkspaceCache (issue #10 item 7): each workspace has its
// own writable Go build cache; a command cannot write, or see, another
// workspace's.
func TestExec_S6_PerWorkspaceCache(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	cache := execWorkspace(t)
	a, b := execWorkspace(t), execWorkspace(t)
	gocache := func(ws string) string {
		r := runSandboxed(t, &Spec{Command: "echo $GOCACHE; echo x > $GOCACHE/mine && echo own-ok", Dir: ws, CacheDir: cache})
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		if len(lines) != 2 || lines[1] != "own-ok" {
			t.Fatalf("in %s: stdout %q stderr %q", ws, r.Stdout, r.Stderr)
		}
		return lines[0]
	}
	ca, cb := gocache(a), gocache(b)
	if ca == cb || !strings.HasPrefix(ca, cache+"/") || !strings.HasPrefix(cb, cache+"/") {
		t.Fatalf("caches %q and %q under %q", ca, cb, cache)
	}
	if again := gocache(a); again != ca {
		t.Errorf("the same workspace got another cache: %q, then %q", ca, again)
	}
	r := runSandboxed(t, &Spec{Command: fmt.Sprintf("echo poison > %s/poison; ls %s; ls %s", cb, cb, cache), Dir: a, CacheDir: cache})
	if _, err := os.Stat(filepath.Join(cb, "poison")); err == nil {
		t.Errorf("workspace a wrote b's cache: %q %q", r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "mine") {
		t.Errorf("workspace a sees b's cache: %q", r.Stdout)
	}
}

// TestExec_S6_NoNestedNamespaces (issue #10 item 9): unshare and clone with
// namespace flags are refused, setns and mount too.
func TestExec_S6_NoNestedNamespaces(t *testing.T) {
	needSandboxLayers(t, LayerSeccomp)
	ws := execWorkspace(t)
	cmd := `unshare -Ur true && echo unshare-user; unshare -U true && echo unshare-plain
unshare -n true && echo unshare-net; unshare -m true && echo unshare-mount`
	if runtime.GOARCH == "amd64" {
		// clone(CLONE_NEWUSER|SIGCHLD): 56 is clone on x86-64.
		cmd += `
perl -e '$p = syscall(56, 0x10000000|17, 0, 0, 0, 0); if ($p == 0) { exit 0 } print "clone-user\n" if $p > 0'`
	}
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws})
	if strings.TrimSpace(r.Stdout) != "" {
		t.Errorf("a namespace was created: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "Operation not permitted") {
		t.Errorf("stderr %q", r.Stderr)
	}
	// Ordinary forks and threads still work.
	r = runSandboxed(t, &Spec{Command: "(true) && seq 2 | cat && python3 -c 'import threading; t=threading.Thread(target=print, args=(7,)); t.start(); t.join()'", Dir: ws})
	if r.Stdout != "1\n2\n7\n" {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
}

// TestExec_S6_OwnHostname (issue #10 item 9): the command has its own UTS
// namespace: it sees the sandbox's host name, and the host's stays.
func TestExec_S6_OwnHostname(t *testing.T) {
	needSandboxLayers(t, LayerUTSNamespace)
	before, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ws := execWorkspace(t)
	r := runSandboxed(t, &Spec{Command: "uname -n; hostname evil", Dir: ws})
	if r.Stdout != sandboxHostname+"\n" {
		t.Errorf("uname -n: %q %q", r.Stdout, r.Stderr)
	}
	if after, _ := os.Hostname(); after != before {
		t.Errorf("the host name changed from %q to %q", before, after)
	}
}

// TestExec_S6_DiskBudget (issue #10 item 9): what all of a command's
// processes write to disk is bounded in total, not only per file; the
// command is killed with a marker. Writers that exit (counted in their
// parent) and fallocate (refused) do not escape.
func TestExec_S6_DiskBudget(t *testing.T) {
	needSandboxLayers(t, LayerDiskBudget)
	const n = 16 << 20
	ws := execWorkspace(t)
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cmd string
		stopped   bool
	}{
		{"three files over two", "for i in 1 2 3; do head -c 16M /dev/zero > out/f$i; sleep 0.5; done; sleep 1; echo finished", true},
		{"many short writers", "for i in $(seq 12); do head -c 4M /dev/zero > out/g$i; done; sleep 1; echo finished", true},
		{"in the temp dir", `for i in 1 2 3; do head -c 16M /dev/zero > "$TMPDIR/t$i"; done; sleep 1; echo finished`, true},
		{"rewriting one file", "for i in 1 2 3; do head -c 4M /dev/zero > out/same; sync; done; sleep 0.5; echo finished", false},
		{"pipes and /dev/null", "head -c 100M /dev/zero | cat > /dev/null; sleep 0.5; echo finished", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			r := runSandboxed(t, &Spec{Command: tt.cmd, Dir: ws, Timeout: time.Minute,
				Limits: Limits{DiskBytes: 2 * n, FileSizeBytes: 4 * n}})
			marker := "[command stopped: it wrote more than 32 MiB to disk]"
			if tt.stopped && (!r.DiskExceeded || strings.Contains(r.Stdout, "finished") || !strings.HasSuffix(r.Stdout, marker)) {
				t.Errorf("not stopped after %v: %+v", time.Since(start), r)
			}
			if !tt.stopped && (r.DiskExceeded || r.Stdout != "finished\n") {
				t.Errorf("stopped: %+v", r)
			}
		})
	}
	r := runSandboxed(t, &Spec{Command: "fallocate -l 1G out/big && echo allocated", Dir: ws, Limits: Limits{DiskBytes: 2 * n}})
	if strings.Contains(r.Stdout, "allocated") {
		t.Errorf("fallocate claimed disk past the budget: %q %q", r.Stdout, r.Stderr)
	}
}

// TestExec_S6_NoCapabilities: the command holds no capability, ambient
// ones included (an unprivileged server's helper holds CAP_SYS_ADMIN for
// its mounts), and cannot undo the read-only mounts.
func TestExec_S6_NoCapabilities(t *testing.T) {
	ws := execWorkspace(t)
	r := runSandboxed(t, &Spec{Command: "grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status", Dir: ws})
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) != 2 || strings.Trim(f[1], "0") != "" {
			t.Errorf("the command holds capabilities: %s", l)
		}
	}
	ctl := controlFixture(t)
	r = runSandboxed(t, &Spec{Command: "umount .git; umount -l .git; mount -o remount,rw .git; echo x >> .git/config && echo wrote", Dir: ctl})
	if strings.Contains(r.Stdout, "wrote") {
		t.Errorf("the command undid the read-only mount: %q %q", r.Stdout, r.Stderr)
	}
}
