package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// BenchmarkHeadlessSession runs the built binary for a 10-turn scripted
// `agentls exec` session (9 tool turns and a final answer) and reports what
// issue 2 asks to measure: time from process start to the first model
// request, the process's peak RSS, and the size of the first model request
// (system prompt + tools + task).
//
//	go test -run '^$' -bench HeadlessSession -benchtime 5x ./cmd/agentls/
func BenchmarkHeadlessSession(b *testing.B) {
	for _, mode := range []string{"plan", "exec"} {
		b.Run(mode, func(b *testing.B) { benchSession(b, mode) })
	}
}

func benchSession(b *testing.B, mode string) {
	bin := filepath.Join(b.TempDir(), "agentls")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	if _, err := sandboxtest.BuildHelper(filepath.Dir(bin)); err != nil {
		b.Fatal(err)
	}
	var script strings.Builder
	for i := 0; i < 9; i++ {
		fmt.Fprintf(&script, `{"tool_calls":[{"name":"read_file","arguments":{"path":"main.go","offset":%d}}]}`+"\n", i+1)
	}
	script.WriteString(`{"content":"done"}` + "\n")
	sc, err := llmtest.ParseScript([]byte(script.String()))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	src := "package main\n\nfunc main() {\n" + strings.Repeat("\tprintln(\"line\")\n", 200) + "}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	var firstMS, rssMB, reqBytes float64
	for b.Loop() {
		srv := llmtest.NewServer(sc)
		var mu sync.Mutex
		var first time.Time
		srv.OnRequest = func(n int, body []byte) {
			if n == 0 {
				mu.Lock()
				first = time.Now()
				mu.Unlock()
			}
		}
		cmd := exec.Command(bin, mode, "--approve=never", "--file", "main.go", "read the file")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL, "AGENTLS_MODEL=bench", "OPENAI_API_KEY=x")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		srv.Close()
		if err != nil {
			b.Fatalf("agentls exec: %v\n%s", err, out)
		}
		if n := len(srv.Requests()); n != 10 {
			b.Fatalf("model requests = %d, want 10", n)
		}
		mu.Lock()
		firstMS += float64(first.Sub(start).Microseconds()) / 1000
		mu.Unlock()
		rssMB += float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
		reqBytes = float64(len(srv.Requests()[0]))
	}
	n := float64(b.N)
	b.ReportMetric(firstMS/n, "ms-to-first-request")
	b.ReportMetric(rssMB/n, "peak-RSS-MiB")
	b.ReportMetric(reqBytes, "first-request-bytes")
}
