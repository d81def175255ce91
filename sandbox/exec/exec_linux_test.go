package exec

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// These tests try to break each sandbox layer from inside a command. A
// test skips only when this kernel or user lacks the layer, and says why.

// execWorkspace returns a fresh workspace directory without symlinks.
func execWorkspace(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// stableWorkspace returns an empty workspace whose path is the same in
// every run of this test binary's package directory, so its per-workspace
// build cache stays warm; it is emptied again afterwards.
func stableWorkspace(t testing.TB, name string) string {
	t.Helper()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(cwd))
	ws := filepath.Join(os.TempDir(), fmt.Sprintf("agentls-%s-%d-%x", name, os.Getuid(), sum[:6]))
	removeTree(ws)
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeTree(ws) })
	ws, err = filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// needSandboxLayers skips t when one of layers is missing here.
func needSandboxLayers(t testing.TB, layers ...string) {
	t.Helper()
	r := testRunner.Layers()
	for _, l := range layers {
		if !r.Has(l) {
			t.Skipf("sandbox layer %s is missing here: %s", l, r.Missing[l])
		}
	}
}

// runSandboxed runs spec with testRunner and fails t on an
// infrastructure error.
func runSandboxed(t testing.TB, spec *Spec) *Result {
	t.Helper()
	return runWith(t, testRunner, spec)
}

// runWith runs spec with r and fails t on an infrastructure error.
func runWith(t testing.TB, r *Runner, spec *Spec) *Result {
	t.Helper()
	res, err := r.Run(t.Context(), spec)
	if err != nil {
		t.Fatalf("Run(%q): %v", spec.Command, err)
	}
	return res
}

// withoutPIDNamespace runs f with the helper started without a PID
// namespace, to test the fallback paths.
func withoutPIDNamespace(t *testing.T, f func()) {
	p := testRunner.probe()
	saved := p.flags
	p.flags &^= unix.CLONE_NEWPID
	defer func() { p.flags = saved }()
	f()
}

func TestLayers(t *testing.T) {
	r := testRunner.Layers()
	t.Logf("\n%s", r)
	if len(r.Active)+len(r.Missing) != len(layerOrder) {
		t.Errorf("report covers %d+%d layers, want %d", len(r.Active), len(r.Missing), len(layerOrder))
	}
	if got := testRunner.Layers(); got.String() != r.String() {
		t.Error("a second probe gave another report")
	}
}

func TestExec_S2_DirExitSignalStreams(t *testing.T) {
	ws := execWorkspace(t)
	r := runSandboxed(t, &Spec{Command: "pwd; echo out; echo err >&2; exit 3", Dir: ws})
	if r.Stdout != ws+"\nout\n" || r.Stderr != "err\n" || r.ExitCode != 3 || r.Signal != "" {
		t.Errorf("got stdout %q stderr %q exit %d signal %q", r.Stdout, r.Stderr, r.ExitCode, r.Signal)
	}
	// The rlimit preamble shares the first line: bash's line numbers hold.
	r = runSandboxed(t, &Spec{Command: ": > /nonexistent/a\n: > /nonexistent/b", Dir: ws})
	if !strings.Contains(r.Stderr, "line 1: /nonexistent/a") || !strings.Contains(r.Stderr, "line 2: /nonexistent/b") {
		t.Errorf("got stdout %q stderr %q exit %d signal %q", r.Stdout, r.Stderr, r.ExitCode, r.Signal)
	}
	r = runSandboxed(t, &Spec{Command: "kill -KILL $$", Dir: ws})
	if r.ExitCode != 128+9 || r.Signal != "SIGKILL" {
		t.Errorf("kill -KILL $$: exit %d signal %q", r.ExitCode, r.Signal)
	}
	if len(r.Layers) == 0 {
		t.Error("no layers reported")
	}
	for _, dir := range []string{"relative", "/", ws + "/missing"} {
		if _, err := testRunner.Run(t.Context(), &Spec{Command: "true", Dir: dir}); err == nil {
			t.Errorf("Dir %q was accepted", dir)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := testRunner.Run(ctx, &Spec{Command: "true", Dir: ws}); err == nil {
		t.Error("a cancelled context ran the command")
	}
}

func TestExec_S1_Concurrent(t *testing.T) {
	ws := execWorkspace(t)
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 6)
	for i := range 6 {
		go func() {
			r, err := testRunner.Run(t.Context(), &Spec{Command: fmt.Sprintf("echo %d; cd sub && mkdir d%d && mv d%d d%d-moved", i, i, i, i), Dir: ws})
			switch {
			case err != nil:
				errs <- err
			case r.Stdout != fmt.Sprintf("%d\n", i) || r.ExitCode != 0:
				errs <- fmt.Errorf("command %d: %+v", i, r)
			default:
				errs <- nil
			}
		}()
	}
	for range 6 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestExec_S1_QuickExitDoesNotWaitForBackground(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	ws := execWorkspace(t)
	start := time.Now()
	r := runSandboxed(t, &Spec{Command: "sleep 100 & echo started", Dir: ws})
	if d := time.Since(start); d > 5*time.Second || r.Stdout != "started\n" {
		t.Errorf("took %v, stdout %q", d, r.Stdout)
	}
}

func TestExec_S3_WriteOutsideFails(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	ws := execWorkspace(t)
	outside := execWorkspace(t)
	tmpFile := fmt.Sprintf("/tmp/agentls-outside-%d", time.Now().UnixNano())
	// A command that runs without approval writes existing top-level
	// files (S6); it cannot create new ones.
	if err := os.WriteFile(filepath.Join(ws, "inside.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf(`echo x > %s/pwned; echo x > %s; mkdir %s/dir; ln -s /etc %s/link;
echo inside > inside.txt && echo in-ws-ok; echo t > "$TMPDIR/t" && echo in-tmp-ok; echo $TMPDIR`,
		outside, tmpFile, outside, outside)
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws})
	for _, p := range []string{outside + "/pwned", tmpFile, outside + "/dir", outside + "/link"} {
		if _, err := os.Lstat(p); err == nil {
			os.RemoveAll(p)
			t.Errorf("the command created %s outside the workspace", p)
		}
	}
	if !strings.Contains(r.Stdout, "in-ws-ok") || !strings.Contains(r.Stdout, "in-tmp-ok") {
		t.Errorf("writing inside failed: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside.txt")); err != nil || string(b) != "inside\n" {
		t.Errorf("inside.txt: %q, %v", b, err)
	}
	if !strings.Contains(r.Stderr, "Permission denied") {
		t.Errorf("stderr %q lacks the refusals", r.Stderr)
	}
	// The private temp dir is gone afterwards.
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if tmp := lines[len(lines)-1]; !strings.HasPrefix(tmp, os.TempDir()) {
		t.Errorf("TMPDIR = %q", tmp)
	} else if _, err := os.Stat(tmp); err == nil {
		t.Errorf("the private temp dir %s was left behind", tmp)
	}
}

func TestExec_S3_ReadSecretFails(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	ws := execWorkspace(t)
	home := filepath.Join(execWorkspace(t), "home")
	key := filepath.Join(home, ".ssh", "id_rsa")
	sibling := filepath.Join(filepath.Dir(home), "other-project", "secret.txt")
	for _, p := range []string{key, sibling} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("TOP-SECRET\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// /etc stays readable without its secrets: as root only Landlock keeps
	// shadow and TLS private keys out of reach.
	cmd := fmt.Sprintf(`cat %s; cat %s; ls %s; cat /etc/shadow /etc/gshadow /etc/ssl/private/* /etc/ssh/ssh_host_*_key;
head -c 20 /etc/passwd >/dev/null && echo passwd-ok`, key, sibling, home)
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws})
	if strings.Contains(r.Stdout, "TOP-SECRET") || strings.Contains(r.Stdout, ".ssh") ||
		strings.Contains(r.Stdout, "root:") || strings.Contains(r.Stdout, "PRIVATE KEY") {
		t.Errorf("a secret leaked: %q", r.Stdout)
	}
	if !strings.Contains(r.Stdout, "passwd-ok") {
		t.Errorf("/etc/passwd should stay readable: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	// A policy read root opens exactly that directory.
	r = runSandboxed(t, &Spec{Command: "cat " + sibling, Dir: ws, ReadRoots: []string{filepath.Dir(sibling)}})
	if r.Stdout != "TOP-SECRET\n" {
		t.Errorf("with a read root: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
}

func TestExec_S2_ServerEnvironmentUnreachable(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	t.Setenv("FOO_API_KEY", "sekrit-from-parent")
	ws := execWorkspace(t)
	cmd := fmt.Sprintf("tr '\\0' '\\n' < /proc/%d/environ; ls -l /proc/%d/fd; cat /proc/%d/cmdline >/dev/null && echo cmdline-visible",
		os.Getpid(), os.Getpid(), os.Getpid())
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws})
	if strings.Contains(r.Stdout, "sekrit") || strings.Contains(r.Stdout, "socket:") {
		t.Errorf("the server's environment or fds leaked: %q", r.Stdout)
	}
	t.Logf("stdout %q stderr %q", r.Stdout, r.Stderr)
}

func TestExec_S2_EnvironmentScrubbed(t *testing.T) {
	t.Setenv("FOO_API_KEY", "parent-secret")
	t.Setenv("GITHUB_TOKEN", "parent-token")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws")
	ws := execWorkspace(t)
	r := runSandboxed(t, &Spec{Command: "env", Dir: ws, Env: []string{
		"FOO_API_KEY=spec-secret", "BAR_TOKEN=t", "OPENAI_BASE_URL=http://x", "LD_PRELOAD=/x.so",
		"PATH=/evil", "BASH_ENV=/x", "GIT_DIR=/elsewhere", "HTTP_PROXY=http://u:p@proxy:8080",
		"MY_SETTING=kept",
	}})
	env := "\n" + r.Stdout
	for _, bad := range []string{"FOO_API_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "AWS_", "BAR_TOKEN",
		"OPENAI_", "LD_PRELOAD", "PATH=/evil", "BASH_ENV", "GIT_DIR", "HTTP_PROXY", "secret"} {
		if strings.Contains(env, "\n"+bad) || strings.Contains(env, bad+"=") {
			t.Errorf("env has %s:\n%s", bad, r.Stdout)
		}
	}
	for _, good := range []string{"MY_SETTING=kept", "TERM=dumb", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "PAGER=cat", "HOME=" + os.TempDir()} {
		if !strings.Contains(env, "\n"+good) {
			t.Errorf("env lacks %s:\n%s", good, r.Stdout)
		}
	}
}

func TestExec_S3_NoNetwork(t *testing.T) {
	needSandboxLayers(t, LayerNetNamespace)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	ws := execWorkspace(t)
	cmd := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws})
	if strings.Contains(r.Stdout, "connected") || r.ExitCode == 0 {
		t.Errorf("connected without AllowNetwork: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if slices := r.Layers; !strings.Contains(strings.Join(slices, ","), LayerNetNamespace) {
		t.Errorf("layers %v lack %s", r.Layers, LayerNetNamespace)
	}
	// AllowNetwork means no network namespace: the host's loopback is
	// reachable.
	r = runSandboxed(t, &Spec{Command: cmd, Dir: ws, AllowNetwork: true})
	if !strings.Contains(r.Stdout, "connected") {
		t.Errorf("AllowNetwork: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	select {
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Error("the listener saw no connection with AllowNetwork")
	}
	if len(accepted) > 0 {
		t.Error("the listener saw a connection from the sandbox without AllowNetwork")
	}
}

func TestExec_S3_UnixSocketsAndPtraceRefused(t *testing.T) {
	needSandboxLayers(t, LayerSeccomp)
	dir := execWorkspace(t)
	sock := filepath.Join(dir, "daemon.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			got <- struct{}{}
			c.Close()
		}
	}()
	ws := execWorkspace(t)
	// The socket's directory is readable (a read root), so only seccomp
	// stands between the command and the daemon.
	cmd := fmt.Sprintf(`perl -MSocket -e 'socket(S, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n";
connect(S, pack_sockaddr_un($ARGV[0])) or die "connect: $!\n"; print "connected\n"' %s;
strace -o /dev/null true && echo traced`, sock)
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws, ReadRoots: []string{dir}, AllowNetwork: true})
	if strings.Contains(r.Stdout, "connected") || strings.Contains(r.Stdout, "traced") {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	select {
	case <-got:
		t.Error("the daemon got a connection")
	default:
	}
	t.Logf("stderr %q", r.Stderr)
}

func TestExec_S2_ProcessLimit(t *testing.T) {
	needSandboxLayers(t, LayerProcessLimit)
	ws := execWorkspace(t)
	// dash reports a failed fork at once; bash would retry for 15 s.
	cmd := `/bin/sh -c 'n=0; for i in $(seq 40); do sleep 5 & n=$((n+1)); done; echo "started $n"' 2>&1; true`
	r := runSandboxed(t, &Spec{Command: cmd, Dir: ws, Timeout: 30 * time.Second, Limits: Limits{Processes: 10}})
	if strings.Contains(r.Stdout, "started 40") || !strings.Contains(strings.ToLower(r.Stdout), "fork") {
		t.Errorf("forking past the limit: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	// A normal pipeline under the default limit is not affected.
	r = runSandboxed(t, &Spec{Command: "seq 3 | cat | cat", Dir: ws})
	if r.Stdout != "1\n2\n3\n" {
		t.Errorf("pipeline: %q %q", r.Stdout, r.Stderr)
	}
}

func TestExec_S2_Rlimits(t *testing.T) {
	needSandboxLayers(t, LayerRlimits)
	ws := execWorkspace(t)
	r := runSandboxed(t, &Spec{Command: "ulimit -n; ulimit -f; ulimit -t; ulimit -v; ulimit -c; ulimit -Hn; ulimit -n 100000 || echo raise-refused; head -c 3000 /dev/zero > big",
		Dir: ws, UserApproved: true, Limits: Limits{OpenFiles: 64, FileSizeBytes: 2048, CPUSeconds: 7, AddressSpaceBytes: 1 << 30}})
	want := "64\n2\n7\n1048576\n0\n64\nraise-refused\n" // -f counts KiB
	if r.Stdout != want {
		t.Errorf("stdout %q, want %q (stderr %q)", r.Stdout, want, r.Stderr)
	}
	if fi, err := os.Stat(filepath.Join(ws, "big")); err != nil || fi.Size() > 2048 {
		t.Errorf("file size limit: %v %v", fi, err)
	}
}

func TestExec_S1_SetsidGrandchildDies(t *testing.T) {
	needSandboxLayers(t, LayerProcessGroup)
	ws := execWorkspace(t)
	check := func(t *testing.T) {
		marker := strconv.Itoa(900000 + int(time.Now().UnixNano()%99999))
		// The grandchild leaves the session and the process group; the
		// command waits until it runs (in its own /proc, which with a
		// PID namespace shows namespace PIDs) and exits.
		cmd := `setsid sleep ` + marker + ` </dev/null >/dev/null 2>&1 &
for i in $(seq 50); do
  for f in /proc/[0-9]*/cmdline; do
    if [ "$(tr '\0' ' ' < $f 2>/dev/null)" = "sleep ` + marker + ` " ]; then echo found; exit 0; fi
  done
  sleep 0.1
done; echo notfound`
		r := runSandboxed(t, &Spec{Command: cmd, Dir: ws, Timeout: 30 * time.Second})
		if r.Stdout != "found\n" {
			t.Fatalf("the grandchild did not start: stdout %q stderr %q", r.Stdout, r.Stderr)
		}
		for _, pid := range hostPIDsOf("sleep\x00" + marker + "\x00") {
			if pidAlive(pid) {
				unix.Kill(pid, unix.SIGKILL)
				t.Errorf("the setsid grandchild %d survived the command", pid)
			}
		}
	}
	t.Run("pid-namespace", func(t *testing.T) {
		needSandboxLayers(t, LayerPIDNamespace)
		check(t)
	})
	t.Run("subreaper", func(t *testing.T) {
		withoutPIDNamespace(t, func() { check(t) })
	})
}

// hostPIDsOf returns the PIDs, in the host's /proc, of the processes
// whose command line is cmdline (NUL-separated arguments).
func hostPIDsOf(cmdline string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == cmdline {
			out = append(out, pid)
		}
	}
	return out
}

// pidAlive reports whether pid runs, counting a zombie as dead (PID 1 of
// these machines does not reap orphans).
func pidAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

func TestExec_S1_TimeoutTermThenKill(t *testing.T) {
	ws := execWorkspace(t)
	t.Run("ignores SIGTERM", func(t *testing.T) {
		start := time.Now()
		r := runSandboxed(t, &Spec{Command: "trap '' TERM; echo partial; sleep 100; echo never",
			Dir: ws, Timeout: time.Second, Grace: 300 * time.Millisecond})
		d := time.Since(start)
		if !r.TimedOut || r.Stdout != "partial\n[command timed out after 1s]" || r.Signal != "SIGKILL" {
			t.Errorf("got %+v", r)
		}
		if d < 1300*time.Millisecond || d > 6*time.Second {
			t.Errorf("returned after %v, want timeout+grace", d)
		}
	})
	t.Run("honours SIGTERM", func(t *testing.T) {
		start := time.Now()
		r := runSandboxed(t, &Spec{Command: "setsid sleep 100 & echo partial; sleep 100",
			Dir: ws, Timeout: time.Second, Grace: 20 * time.Second})
		if d := time.Since(start); d > 6*time.Second {
			t.Errorf("returned after %v: SIGTERM did not stop the command", d)
		}
		if !r.TimedOut || !strings.HasSuffix(r.Stdout, "[command timed out after 1s]") || r.Signal != "SIGTERM" ||
			!strings.HasPrefix(r.Stdout, "partial\n") {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("before the shell starts", func(t *testing.T) {
		// SIGTERM may reach the helper before the shell exists; it must
		// still stop the command, not wait for the grace period.
		for range 5 {
			start := time.Now()
			r := runSandboxed(t, &Spec{Command: "sleep 100", Dir: ws, Timeout: time.Millisecond, Grace: 20 * time.Second})
			if d := time.Since(start); d > 10*time.Second || !r.TimedOut {
				t.Fatalf("returned after %v: %+v", d, r)
			}
		}
	})
	t.Run("context cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(200*time.Millisecond, cancel)
		r, err := testRunner.Run(ctx, &Spec{Command: "sleep 100", Dir: ws, Grace: time.Second})
		if err != nil || !r.Canceled || r.TimedOut || !strings.Contains(r.Stdout, "[command cancelled after") {
			t.Errorf("got %+v, %v", r, err)
		}
	})
	t.Run("without a PID namespace", func(t *testing.T) {
		withoutPIDNamespace(t, func() {
			r := runSandboxed(t, &Spec{Command: "trap '' TERM; sleep 100", Dir: ws,
				Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond})
			if !r.TimedOut {
				t.Errorf("got %+v", r)
			}
		})
	})
}

func TestExec_S4_LargeOutputBounded(t *testing.T) {
	ws := execWorkspace(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := runSandboxed(t, &Spec{Command: "yes | head -c 50000000; yes e | head -c 3000000 >&2", Dir: ws})
	runtime.ReadMemStats(&after)
	if r.StdoutBytes != 50000000 || r.StderrBytes != 3000000 {
		t.Errorf("counted %d/%d bytes", r.StdoutBytes, r.StderrBytes)
	}
	cutOut := 50000000 - StdoutCap
	cutErr := 3000000 - StderrCap
	if !strings.Contains(r.Stdout, fmt.Sprintf("[… %d bytes cut …]", cutOut)) ||
		!strings.Contains(r.Stderr, fmt.Sprintf("[… %d bytes cut …]", cutErr)) {
		t.Errorf("markers missing: stdout %d bytes, stderr %d bytes", len(r.Stdout), len(r.Stderr))
	}
	if len(r.Stdout)+len(r.Stderr) > OutputCap+100 {
		t.Errorf("kept %d bytes", len(r.Stdout)+len(r.Stderr))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("allocated %d bytes for 53 MB of output", grew)
	}
}

func TestExec_S4_BinaryAndInvalidUTF8(t *testing.T) {
	ws := execWorkspace(t)
	r := runSandboxed(t, &Spec{Command: `head -c 5000 /dev/urandom; printf 'ok \xff\xfe end\n' >&2`, Dir: ws})
	if r.Stdout != "Binary output (5000 bytes). Pipe to a file if needed." {
		t.Errorf("stdout %q", r.Stdout)
	}
	if r.Stderr != "ok \uFFFD end\n" {
		t.Errorf("stderr %q", r.Stderr)
	}
}

func TestExec_S3_GoToolchainUsable(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	if _, err := os.Stat(filepath.Join(testRunner.probe().tc.goroot, "bin", "go")); err != nil {
		t.Skip("no Go toolchain found")
	}
	ws := execWorkspace(t)
	r := runSandboxed(t, &Spec{Command: "go version && go env GOROOT GOCACHE", Dir: ws})
	if r.ExitCode != 0 || !strings.HasPrefix(r.Stdout, "go version") {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
}

func TestExec_S3_GoBuildWithModuleCache(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	if testing.Short() {
		t.Skip("builds the standard library into the sandbox's Go cache when it is cold")
	}
	sum, err := os.ReadFile("../../go.sum")
	if err != nil {
		t.Skip("no ../../go.sum to take the golang.org/x/sys version from")
	}
	var require string
	for _, line := range strings.Split(string(sum), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "golang.org/x/sys" && !strings.HasSuffix(f[1], "/go.mod") {
			require = f[1]
		}
	}
	if require == "" {
		t.Skip("go.sum has no golang.org/x/sys")
	}
	// The build cache is per workspace (S6): a workspace path that stays
	// the same between runs of this worktree's tests keeps it warm.
	ws := stableWorkspace(t, "gobuild")
	files := map[string]string{
		"go.mod": "module probe\n\ngo " + strings.TrimPrefix(runtime.Version(), "go") +
			"\n\nrequire golang.org/x/sys " + require + "\n",
		"go.sum":  string(sum),
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"golang.org/x/sys/unix\"\n)\n\nfunc main() { fmt.Println(unix.Getpid() > 0) }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runSandboxed(t, &Spec{Command: "go build -o bin/probe . && bin/probe && go vet . && echo vetted", Dir: ws,
		Timeout: 8 * time.Minute})
	if r.Stdout != "true\nvetted\n" {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
}

// execUnprivEnv is set in the environment of the unprivileged re-run.
const execUnprivEnv = "AGENTLS_SANDBOX_TEST_UID"

// TestExec_Unprivileged re-runs the layer tests as an unprivileged user
// when the tests run as root: the sandbox must hold for both (RLIMIT_NPROC
// instead of the pids cgroup, no capabilities to drop).
func TestExec_Unprivileged(t *testing.T) {
	switch {
	case os.Getenv(execUnprivEnv) != "":
		t.Skip("this is the unprivileged run")
	case os.Geteuid() != 0:
		t.Skip("the layer tests already run unprivileged")
	case testing.Short():
		t.Skip("re-runs the whole layer suite")
	}
	const nobody = 65534
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "agentls-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	defer removeTree(dir)
	home := filepath.Join(dir, "home")
	bin := filepath.Join(dir, "sandbox.test")
	helper := filepath.Join(dir, "agentls-sandbox") // root's, as installed
	b, err := os.ReadFile(exe)
	if err == nil {
		err = os.WriteFile(bin, b, 0o755)
	}
	if err == nil {
		b, err = os.ReadFile(testHelper)
	}
	if err == nil {
		err = os.WriteFile(helper, b, 0o755)
	}
	if err == nil {
		err = os.Mkdir(home, 0o700)
	}
	if err == nil {
		err = os.Chown(home, nobody, nobody)
	}
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := osexec.CommandContext(t.Context(), bin, "-test.run=^(TestLayers|TestExec_S[1-7]_|TestHelper_I16_)", "-test.short", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir(), execUnprivEnv + "=65534",
		execHelperEnv + "=" + helper}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	t.Logf("as uid %d:\n%s", nobody, out)
	if err != nil {
		t.Errorf("the unprivileged run failed: %v", err)
	}
}

// execServerRoleEnv is set when the test binary plays a server that dies while
// its command runs.
const execServerRoleEnv = "AGENTLS_SANDBOX_TEST_SERVER"

func TestExec_S1_DiesWithServer(t *testing.T) {
	if ws := os.Getenv(execServerRoleEnv); ws != "" {
		// The doomed server: the command says it runs through the FIFO,
		// then waits to be killed with us.
		marker := os.Getenv(execServerRoleEnv + "_MARKER")
		_, err := testRunner.Run(context.Background(), &Spec{Dir: ws, Timeout: time.Minute,
			Command: "echo started > fifo; exec sleep " + marker})
		if err != nil { // unblock the test's read
			os.WriteFile(filepath.Join(ws, "fifo"), []byte(err.Error()), 0)
		}
		os.Exit(0)
	}
	needSandboxLayers(t, LayerPdeathsig)
	ws := execWorkspace(t)
	fifo := filepath.Join(ws, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := strconv.Itoa(800000 + int(time.Now().UnixNano()%99999))
	server := osexec.Command(exe, "-test.run=^TestExec_S1_DiesWithServer$")
	server.Env = append(os.Environ(), execServerRoleEnv+"="+ws, execServerRoleEnv+"_MARKER="+marker)
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer server.Wait()
	defer server.Process.Kill()
	if b, err := os.ReadFile(fifo); err != nil || string(b) != "started\n" { // blocks until the command writes
		t.Fatalf("the command did not start: %q, %v", b, err)
	}
	// The command's own /proc shows namespace PIDs: find its host PID.
	var pids []int
	for deadline := time.Now().Add(10 * time.Second); len(pids) == 0 && time.Now().Before(deadline); {
		pids = hostPIDsOf("sleep\x00" + marker + "\x00")
		time.Sleep(20 * time.Millisecond)
	}
	if len(pids) != 1 {
		t.Fatalf("host PIDs of the command: %v", pids)
	}
	pid := pids[0]
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	defer unix.Close(pidfd)
	server.Process.Kill()
	// A pidfd becomes readable when its process exits.
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	deadline := time.Now().Add(10 * time.Second)
	n, err := 0, unix.EINTR
	for err == unix.EINTR && time.Now().Before(deadline) {
		n, err = unix.Poll(fds, int(time.Until(deadline).Milliseconds()))
	}
	if (n != 1 || err != nil) && pidAlive(pid) {
		unix.Kill(pid, unix.SIGKILL)
		t.Fatalf("the command %d outlived its server (poll %d, %v)", pid, n, err)
	}
}

func TestExec_S2_GitHardened(t *testing.T) {
	if _, err := osexec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	ws := execWorkspace(t)
	// A repository whose config and hooks try to run programs: fsmonitor,
	// pager and a pre-commit hook each touch a marker.
	setup := `git init -q . && printf 'a\n' > f && git add f &&
git -c user.name=a -c user.email=a@b commit -qm init && printf 'b\n' > f &&
printf '#!/bin/sh\ntouch "%s/pwned-$(basename "$0")"\n' "$PWD" > evil.sh && chmod +x evil.sh &&
cp evil.sh .git/hooks/pre-commit && cp evil.sh fsmonitor && cp evil.sh pager &&
git config core.fsmonitor "$PWD/fsmonitor" && git config core.pager "$PWD/pager" && echo ready`
	// The user approves both commands: git init and commit write .git.
	r := runSandboxed(t, &Spec{Command: setup, Dir: ws, UserApproved: true})
	if !strings.Contains(r.Stdout, "ready") {
		t.Fatalf("setup: %q %q", r.Stdout, r.Stderr)
	}
	r = runSandboxed(t, &Spec{Command: `git status --short && git diff && git log -p | head -3 &&
git -c user.name=a -c user.email=a@b commit -qam second && echo committed`, Dir: ws, UserApproved: true})
	if !strings.Contains(r.Stdout, "committed") || !strings.Contains(r.Stdout, "+b") {
		t.Errorf("git did not work: %q %q", r.Stdout, r.Stderr)
	}
	if marks, _ := filepath.Glob(filepath.Join(ws, "pwned-*")); len(marks) > 0 {
		t.Errorf("git ran a program from the repository's config or hooks: %v", marks)
	}
}

func TestPidsCgroup_StaleSweepSparesLiveServers(t *testing.T) {
	cg := testRunner.probe().cgroup
	if cg == nil {
		t.Skip("no pids cgroup in use here (it stands in for RLIMIT_NPROC as root)")
	}
	live, err := cg.create(5)
	if err != nil {
		t.Fatal(err)
	}
	defer cg.remove(live)
	// A cgroup of a server that is gone: PID 0 never names a process.
	dead := filepath.Join(cg.base, "0-1")
	if err := os.Mkdir(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	defer unix.Rmdir(dead)
	// Another server starting up sweeps stale cgroups.
	if _, err := findPidsCgroup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the sweep removed a live server's empty cgroup: %v", err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("the sweep kept a dead server's cgroup")
	}
}

// TestPidsCgroup_Issue25_LeftoverNamedLikeTheNext: leftovers of an earlier
// process that had this process's PID (start-up clean-up keeps those, as
// it keeps a live runner's), named as the next cgroup would be, do not
// stop the next commands (issue 25: "pids cgroup: mkdir
// …/agentls/18124-2: file exists").
func TestPidsCgroup_Issue25_LeftoverNamedLikeTheNext(t *testing.T) {
	cg := testRunner.probe().cgroup
	if cg == nil {
		t.Skip("no pids cgroup in use here (it stands in for RLIMIT_NPROC as root)")
	}
	next := cg.seq.Load() + 1
	pid := strconv.Itoa(os.Getpid())
	planted := map[string]bool{
		cg.name(next): true, cg.name(next + 1): true, // this runner's next names
		pid + "-" + strconv.FormatUint(next, 10): true, pid + "-1": true, pid + "-2": true, // the <pid>-<n> of before
	}
	for name := range planted {
		dir := filepath.Join(cg.base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		defer unix.Rmdir(dir)
	}
	// A runner of its own starts its sequence again, as after a restart.
	fresh := New(&Options{Helper: testHelper})
	defer fresh.Close()
	for _, r := range []*Runner{testRunner, testRunner, fresh, fresh} {
		res, err := r.Run(t.Context(), &Spec{Command: "echo ran", Dir: execWorkspace(t)})
		if err != nil {
			t.Fatalf("a leftover cgroup stops the command: %v", err)
		}
		if res.Stdout != "ran\n" {
			t.Fatalf("echo ran: %+v", res)
		}
	}
}
