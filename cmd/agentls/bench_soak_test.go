package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/script"
	"github.com/agentls/agentls/lspserver/command"
)

// soakRuns is how many plan runs BenchmarkServeSoak_I26 sends to one
// server; AGENTLS_SOAK_RUNS changes it.
const soakRuns = 400

// BenchmarkServeSoak_I26 starts one `agentls serve` (the built binary),
// as an editor keeps it for days, and sends it plan runs one after the
// other, each in a session of its own, against a scripted model on
// loopback that reads a file and lists the workspace before it answers. It prints the server's open files and RSS before the first
// run and every 100 runs, and reports the growth over all of them
// (issue 26 item 1, done when: at most 10 more open files and 16 MiB more
// RSS after 400 runs; before the fix one more file per run, 19 → 419,
// and 24 → 66-70 MiB).
//
//	go test -run '^$' -bench ServeSoak_I26 -benchtime 1x ./cmd/agentls/
//	testdata/bench/serve_soak.sh
func BenchmarkServeSoak_I26(b *testing.B) {
	runs := soakRuns
	if n, err := strconv.Atoi(os.Getenv("AGENTLS_SOAK_RUNS")); err == nil && n > 0 {
		runs = n
	}
	bin := benchBinary(b)
	model := httptest.NewServer(http.HandlerFunc(soakModel))
	defer model.Close()
	var fds, rss float64
	for b.Loop() {
		p := startServeWith(b, bin, answerAll, "OPENAI_BASE_URL="+model.URL+"/v1", "AGENTLS_MODEL=bench", "OPENAI_API_KEY=x")
		main := filepath.Join(p.root, "main.go")
		src := "package main\n\nfunc main() {\n" + strings.Repeat("\tprintln(\"a line of the program\")\n", 200) + "}\n"
		if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		fd0, rss0 := openFiles(b, p.cmd.Process.Pid), p.rssMiB(b)
		b.Logf("%4d runs: %3d open files, RSS %5.1f MiB", 0, fd0, rss0)
		var fd1 int
		var rss1 float64
		for i := 1; i <= runs; i++ {
			soakPlan(b, p, main, i)
			if i%100 == 0 || i == runs {
				fd1, rss1 = openFiles(b, p.cmd.Process.Pid), p.rssMiB(b)
				b.Logf("%4d runs: %3d open files, RSS %5.1f MiB", i, fd1, rss1)
			}
		}
		fds, rss = float64(fd1-fd0), rss1-rss0
		b.Logf("growth over %d plan runs: %+d open files (at most 10), %+.1f MiB RSS (at most 16)", runs, fd1-fd0, rss1-rss0)
		p.stop(b)
	}
	b.ReportMetric(fds, "open-files-growth")
	b.ReportMetric(rss, "MiB-RSS-growth")
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("load %s", strings.TrimSpace(string(load)))
}

// soakModel answers each plan run as a model that looks around first: it
// reads main.go, lists the workspace, then answers with a plan of about
// 2 KB; the turn is the number of assistant messages in the request.
func soakModel(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t := script.Turn{Content: "Plan:\n" + strings.Repeat("- main prints a line; nothing to change there.\n", 40)}
	switch bytes.Count(body, []byte(`"role":"assistant"`)) {
	case 0:
		t = script.Turn{ToolCalls: []script.ToolCall{{ID: "call_read", Name: "read_file", Arguments: json.RawMessage(`{"path":"main.go"}`)}}}
	case 1:
		t = script.Turn{ToolCalls: []script.ToolCall{{ID: "call_list", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)}}}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	script.NewHandler(script.Script{t}).ServeHTTP(w, r)
}

// soakPlan sends plan run i and checks that it finished.
func soakPlan(b *testing.B, p *serveProc, file string, i int) {
	b.Helper()
	args := command.Args{Target: command.Target{URI: "file://" + file}, Instruction: fmt.Sprintf("soak %d: what does main do?", i)}
	var res command.Result
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": command.Plan, "arguments": []any{args}}, &res); err != nil {
		b.Fatalf("run %d: %v", i, err)
	}
	if res.Status != command.StatusDone || len(res.Steps) != 2 {
		b.Fatalf("run %d: %s: %s", i, res.Status, res.Summary)
	}
}

// openFiles counts the open file descriptors of process pid.
func openFiles(b *testing.B, pid int) int {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	return len(ents)
}
