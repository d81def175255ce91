package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
)

// BenchmarkReplay replays the peer harness's scripted 10-turn session
// (list, three reads, four shell commands, an edit, the final text) with
// the built binaries through `agentls exec --approve=all` and a scripted
// OpenAI-compatible server, and reports what issue 16 measures, as the
// median over the sessions run (-benchtime Nx):
//
//   - cpu-s/session: user+system CPU of the server and everything it
//     started (helpers, shells, commands), from wait4; server-cpu-s is
//     the server's own share up to the last request (its threads'
//     schedstat);
//   - peak-RSS-MiB: the server's peak RSS plus the largest sandbox
//     helper's (server-MiB and helper-MiB apart): VmHWM of the server and
//     of the processes below it (the zygote and the command inits) at
//     every model request.
//     Polling /proc more often would cost the server: every dentry of a
//     task read there is invalidated, under spinlocks, when it is reaped;
//   - ms-to-first-request: process start to the first model request;
//   - ms-after-shell: agent time after a shell turn, from the moment the
//     command's last line (bash's $EPOCHREALTIME) was written to the next
//     model request arriving — helper teardown, output checks, audit,
//     journal and the request build together;
//   - first-request-bytes and growth-bytes/turn (request k+1 − request
//     k − the tool result's text) for the largest tool turn.
//
// testdata/bench/replay.sh runs it several times and prints the load.
//
//	go test -run '^$' -bench Replay -benchtime 7x ./cmd/agentls/
func BenchmarkReplay(b *testing.B) {
	bin := benchBinary(b)
	sc, err := llmtest.ParseScript([]byte(replayScript))
	if err != nil {
		b.Fatal(err)
	}
	var runs []replayRun
	for b.Loop() {
		ws := replayWorkspace(b)
		runs = append(runs, replayOnce(b, bin, ws, sc))
	}
	med := func(f func(replayRun) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	b.ReportMetric(med(func(r replayRun) float64 { return r.cpu.Seconds() }), "cpu-s/session")
	b.ReportMetric(med(func(r replayRun) float64 { return r.serverCPU.Seconds() }), "server-cpu-s")
	b.ReportMetric(med(func(r replayRun) float64 { return mib(r.serverKB + r.helperKB) }), "peak-RSS-MiB")
	b.ReportMetric(med(func(r replayRun) float64 { return mib(r.serverKB) }), "server-MiB")
	b.ReportMetric(med(func(r replayRun) float64 { return mib(r.helperKB) }), "helper-MiB")
	b.ReportMetric(med(func(r replayRun) float64 { return ms(r.first) }), "ms-to-first-request")
	b.ReportMetric(med(func(r replayRun) float64 { return ms(r.afterShell) }), "ms-after-shell")
	b.ReportMetric(med(func(r replayRun) float64 { return float64(r.firstBytes) }), "first-request-bytes")
	b.ReportMetric(med(func(r replayRun) float64 { return float64(r.growth) }), "growth-bytes/turn")
	b.ReportMetric(0, "ns/op") // the wall time of a session is the scripted model's, not ours
}

// replayScript is the session: the stamp after each command (bash's
// $EPOCHREALTIME, no extra process) marks when it ended, for
// ms-after-shell.
const replayScript = `{"tool_calls":[{"name":"list_dir","arguments":{"path":"."}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"go.mod"}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"README.md"}}]}
{"tool_calls":[{"name":"run_command","arguments":{"command":"ls -la; echo $EPOCHREALTIME"}}]}
{"tool_calls":[{"name":"run_command","arguments":{"command":"grep -n func main.go; echo $EPOCHREALTIME"}}]}
{"tool_calls":[{"name":"run_command","arguments":{"command":"wc -l main.go README.md; echo $EPOCHREALTIME"}}]}
{"tool_calls":[{"name":"run_command","arguments":{"command":"cat go.mod; echo $EPOCHREALTIME"}}]}
{"tool_calls":[{"name":"edit_file","arguments":{"path":"main.go","edits":[{"old_text":"println(\"hello\")","new_text":"println(\"hello, world\")"}]}}]}
{"content":"Changed the greeting in main.go."}
`

// replayRun is one session's numbers.
type replayRun struct {
	cpu, serverCPU     time.Duration
	serverKB, helperKB int64
	first, afterShell  time.Duration
	firstBytes, growth int
}

func mib(kb int64) float64       { return float64(kb) / 1024 }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func replayWorkspace(b *testing.B) string {
	dir := b.TempDir()
	files := map[string]string{
		"main.go":   "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n\nfunc helper() int { return 42 }\n",
		"go.mod":    "module example.com/hello\n\ngo 1.22\n",
		"README.md": "# hello\n\nPrints a greeting.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// stampRE is bash's $EPOCHREALTIME: seconds and microseconds.
var stampRE = regexp.MustCompile(`\b1[0-9]{9}\.[0-9]{6}\b`)

// replayOnce runs one session and measures it.
func replayOnce(b *testing.B, bin, ws string, sc llmtest.Script) replayRun {
	srv := llmtest.NewServer(sc)
	defer srv.Close()
	var (
		mu      sync.Mutex
		arrived []time.Time
		bodies  [][]byte
		pid     int
		// serverCPU is the server's own CPU up to the last request,
		// from its threads' schedstat.
		serverCPU time.Duration
		tree      = newRSSTracker()
	)
	srv.OnRequest = func(n int, body []byte) {
		now := time.Now()
		mu.Lock()
		arrived = append(arrived, now)
		bodies = append(bodies, slices.Clone(body))
		p := pid
		mu.Unlock()
		tree.sample(p) // the server is alive and waiting here
		if n == 9 {
			serverCPU = procCPU(p)
		}
	}
	cmd := exec.Command(bin, "exec", "--approve=all", "--file", "main.go", "make the greeting say hello, world")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL, "AGENTLS_MODEL=bench", "OPENAI_API_KEY=x")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	pid = cmd.Process.Pid
	mu.Unlock()
	err := cmd.Wait()
	if err != nil {
		b.Fatalf("agentls exec: %v\n%s", err, out.Bytes())
	}
	if len(bodies) != 10 {
		b.Fatalf("model requests = %d, want 10\n%s", len(bodies), out.Bytes())
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "main.go")); !bytes.Contains(got, []byte("hello, world")) {
		b.Fatalf("the edit did not land:\n%s\n%s", got, out.Bytes())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r := replayRun{
		cpu:        time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		serverCPU:  serverCPU,
		first:      arrived[0].Sub(start),
		firstBytes: len(bodies[0]),
	}
	r.serverKB, r.helperKB = tree.peaks(pid)
	var after []time.Duration
	for k := 1; k < len(bodies); k++ {
		result, raw := lastToolResult(b, bodies[k])
		r.growth = max(r.growth, len(bodies[k])-len(bodies[k-1])-raw)
		if k >= 5 && k <= 8 { // the answers to the four shell turns
			stamps := stampRE.FindAllString(result, -1)
			if len(stamps) == 0 {
				b.Fatalf("request %d: no end stamp in the command's result %q", k, result)
			}
			sec, usec, _ := strings.Cut(stamps[len(stamps)-1], ".")
			si, _ := strconv.ParseInt(sec, 10, 64)
			ui, _ := strconv.ParseInt(usec, 10, 64)
			after = append(after, arrived[k].Sub(time.Unix(si, ui*1000)))
		}
	}
	slices.Sort(after)
	r.afterShell = after[len(after)/2]
	return r
}

// lastToolResult is the content of the last message of a chat request,
// the tool result the request answers, and its size as sent (JSON).
func lastToolResult(b *testing.B, body []byte) (text string, sent int) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		b.Fatalf("request body: %v", err)
	}
	m := req.Messages[len(req.Messages)-1]
	if m.Role != "tool" {
		b.Fatalf("last message role %q, want tool", m.Role)
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err != nil {
		return string(m.Content), len(m.Content) // content parts
	}
	return s, len(m.Content)
}

// rssTracker keeps the peak RSS (VmHWM) of the server and of every
// process below it seen so far.
type rssTracker struct {
	mu   sync.Mutex
	peak map[int]int64 // pid → VmHWM in KiB
}

func newRSSTracker() *rssTracker { return &rssTracker{peak: map[int]int64{}} }

// sample reads VmHWM of pid and its descendants.
func (t *rssTracker) sample(pid int) {
	if pid == 0 {
		return
	}
	for _, p := range append([]int{pid}, descendants(pid)...) {
		if kb := int64(procKB(p, "VmHWM")); kb > 0 {
			t.mu.Lock()
			t.peak[p] = max(t.peak[p], kb)
			t.mu.Unlock()
		}
	}
}

// peaks returns the server's peak and the largest other process's.
func (t *rssTracker) peaks(server int) (serverKB, helperKB int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p, kb := range t.peak {
		if p == server {
			serverKB = kb
		} else {
			helperKB = max(helperKB, kb)
		}
	}
	return serverKB, helperKB
}

// procCPU is the CPU time of pid's threads so far (schedstat, in ns).
func procCPU(pid int) time.Duration {
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var t time.Duration
	for _, f := range stats {
		data, _ := os.ReadFile(f)
		if fields := strings.Fields(string(data)); len(fields) > 0 {
			ns, _ := strconv.ParseInt(fields[0], 10, 64)
			t += time.Duration(ns)
		}
	}
	return t
}
