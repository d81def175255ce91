package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/lspserver/transport"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// serveProc is `agentls serve` as a child process with an LSP client on
// its stdio: what an editor sees, for benchmarks that read the process's
// own numbers (RSS, fds, goroutines) from /proc.
type serveProc struct {
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	root string
}

// benchBinary builds the binary under test (without -race), or returns $AGENTLS_BENCH_BIN
// (to measure another build, an older one for instance).
func benchBinary(b *testing.B) string {
	if bin := os.Getenv("AGENTLS_BENCH_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "agentls")
	build := exec.Command("go", "build", "-o", bin, ".")
	if _, set := os.LookupEnv("CGO_ENABLED"); !set {
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README installs it
	}
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	if _, err := sandboxtest.BuildHelper(filepath.Dir(bin)); err != nil {
		b.Fatal(err)
	}
	return bin
}

type procRWC struct {
	io.Reader
	io.WriteCloser
}

func startServe(b *testing.B, bin string, env ...string) *serveProc {
	return startServeWith(b, bin, jsonrpc2.MethodNotFoundHandler, env...)
}

// startServeWith is startServe with h answering the server's requests.
func startServeWith(b *testing.B, bin string, h jsonrpc2.Handler, env ...string) *serveProc {
	return startServeCaps(b, bin, h, map[string]any{}, env...)
}

// startServeCaps is startServeWith for a client with the given
// capabilities.
func startServeCaps(b *testing.B, bin string, h jsonrpc2.Handler, caps map[string]any, env ...string) *serveProc {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), append([]string{"HOME=" + root, "XDG_STATE_HOME=" + root}, env...)...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &serveProc{cmd: cmd, conn: transport.NewConn(procRWC{out, in}, nil), root: root}
	p.conn.Go(context.Background(), h)
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	params := map[string]any{"processId": nil, "rootUri": "file://" + root, "capabilities": caps}
	if _, err := p.conn.Call(context.Background(), "initialize", params, nil); err != nil {
		b.Fatalf("initialize: %v", err)
	}
	if err := p.conn.Notify(context.Background(), "initialized", map[string]any{}); err != nil {
		b.Fatal(err)
	}
	p.barrier(b)
	return p
}

// barrier returns once the server has handled everything sent before:
// notifications are handled in order, before the call that follows them.
func (p *serveProc) barrier(b *testing.B) {
	b.Helper()
	_, err := p.conn.Call(context.Background(), "textDocument/codeAction", map[string]any{}, nil)
	if err == nil {
		return
	}
	if _, ok := err.(*jsonrpc2.Error); !ok {
		b.Fatalf("the server is gone: %v", err)
	}
}

func (p *serveProc) stop(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = p.conn.Call(ctx, "shutdown", nil, nil)
	_ = p.conn.Notify(ctx, "exit", nil)
	_ = p.cmd.Wait()
}

// status returns a field of /proc/PID/status in kB (VmRSS, VmHWM).
func (p *serveProc) status(b *testing.B, field string) float64 {
	f, err := os.Open("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseFloat(strings.Fields(v)[0], 64)
			return n
		}
	}
	b.Fatalf("no %s in /proc status", field)
	return 0
}

func (p *serveProc) rssMiB(b *testing.B) float64 { return p.status(b, "VmRSS") / 1024 }

// BenchmarkLargeDocuments opens three 50 MB documents in one `agentls
// serve`, then closes them, and reports the process's RSS idle, with the
// three open, its peak, and after the close (#12 item 5; target after the
// close ≤ 64 MiB; before the fix 30, 577-727 and ~464 MiB).
//
//	go test -run '^$' -bench LargeDocuments -benchtime 1x ./cmd/agentls/
func BenchmarkLargeDocuments(b *testing.B) {
	bin := benchBinary(b)
	text := strings.Repeat("// a generated line of a very large file, 64 bytes long......\n", 50<<20/64)
	var idle, opened, peak, closed float64
	for b.Loop() {
		p := startServe(b, bin)
		idle += p.rssMiB(b)
		var uris []string
		for i := range 3 {
			u := "file://" + filepath.Join(p.root, "big"+strconv.Itoa(i)+".txt")
			uris = append(uris, u)
			err := p.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": u, "languageId": "plaintext", "version": 1, "text": text,
			}})
			if err != nil {
				b.Fatal(err)
			}
		}
		p.barrier(b)
		opened += p.rssMiB(b)
		for _, u := range uris {
			if err := p.conn.Notify(context.Background(), "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}}); err != nil {
				b.Fatal(err)
			}
		}
		p.barrier(b)
		time.Sleep(time.Second) // what the runtime returns by itself in a second counts too
		closed += p.rssMiB(b)
		peak += p.status(b, "VmHWM") / 1024
		p.stop(b)
	}
	n := float64(b.N)
	b.ReportMetric(idle/n, "MiB-idle")
	b.ReportMetric(opened/n, "MiB-3-open")
	b.ReportMetric(peak/n, "MiB-peak")
	b.ReportMetric(closed/n, "MiB-after-close")
}
