package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/agent/script"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// turnCost is what the agent spent between the end of one model reply and
// the arrival of its next request: the tool phase, the journal, the
// normalizers, compaction bookkeeping and encoding the request. A turn
// whose gap includes a compaction round trip is marked.
type turnCost struct {
	wall, cpu  time.Duration
	allocBytes uint64
	allocObjs  uint64
	reqBytes   int  // the next tool request's body
	compacted  bool // a compaction request came in this gap
}

// meter samples the process between the server's replies: in the gap
// between a reply and the next request only the agent runs (the server
// idles), so the process's CPU and allocations in it are the agent's.
type meter struct {
	mu      sync.Mutex // guards the fields below
	last    sample
	pending turnCost
	turns   []turnCost // index k: the gap before tool request k+1
	samples []metrics.Sample
}

type sample struct {
	wall        time.Time
	cpu         time.Duration
	bytes, objs uint64
}

func newMeter() *meter {
	return &meter{samples: []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}}
}

func (m *meter) now() sample {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	metrics.Read(m.samples)
	return sample{wall: time.Now(), cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		bytes: m.samples[0].Value.Uint64(), objs: m.samples[1].Value.Uint64()}
}

// arrived closes the gap that a request ends; tool requests end a turn.
func (m *meter) arrived(toolRequest bool, size int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.now()
	if !m.last.wall.IsZero() {
		m.pending.wall += s.wall.Sub(m.last.wall)
		m.pending.cpu += s.cpu - m.last.cpu
		m.pending.allocBytes += s.bytes - m.last.bytes
		m.pending.allocObjs += s.objs - m.last.objs
	}
	if !toolRequest {
		m.pending.compacted = true
		return
	}
	m.pending.reqBytes = size
	m.turns = append(m.turns, m.pending)
	m.pending = turnCost{}
}

// replied opens a gap: the reply is sent.
func (m *meter) replied() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = m.now()
}

// scaleModel serves a scripted session of n tool turns and a final answer
// on loopback, and answers every compaction request (one without tools)
// with a summary. Each request gets a fresh one-turn [script.Handler], so
// that the server keeps no bodies: a long session would otherwise hold
// every request in the benchmark's heap.
type scaleModel struct {
	srv   *httptest.Server
	meter *meter
	turns script.Script

	// noUsage makes it a model that reports no usage: the requests'
	// include_usage is dropped before the script answers (issue 27 item 3).
	noUsage bool

	mu          sync.Mutex // guards next, compactions and noUsageReqs
	next        int
	compactions int
	noUsageReqs int // requests whose include_usage was dropped
}

func newScaleModel(turns script.Script) *scaleModel {
	sm := &scaleModel{meter: newMeter(), turns: turns}
	sm.srv = httptest.NewServer(http.HandlerFunc(sm.serve))
	return sm
}

func (sm *scaleModel) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	toolRequest := bytes.Contains(body, []byte(`"tools":[`))
	sm.meter.arrived(toolRequest, len(body))
	defer sm.meter.replied()
	sm.mu.Lock()
	var t script.Turn
	if toolRequest {
		if sm.next < len(sm.turns) {
			t = sm.turns[sm.next]
		}
		sm.next++
	} else {
		sm.compactions++
		t = script.Turn{Content: fmt.Sprintf("Summary %d: the task is to read the workspace; files read so far: pkg/f1.go … pkg/f19.go.", sm.compactions)}
	}
	sm.mu.Unlock()
	if sm.noUsage {
		if bytes.Contains(body, []byte(`"include_usage":true`)) {
			body = bytes.Replace(body, []byte(`"include_usage":true`), []byte(`"include_usage":false`), 1)
			sm.mu.Lock()
			sm.noUsageReqs++
			sm.mu.Unlock()
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	script.NewHandler(script.Script{t}).ServeHTTP(w, r)
}

// scaleScript is n tool turns cycling through cheap tools, each call with
// its own ID, then a final answer.
func scaleScript(n int) script.Script {
	var s script.Script
	for i := range n {
		var name, args string
		switch i % 4 {
		case 0, 2:
			name, args = "read_file", fmt.Sprintf(`{"path":"pkg/f%d.go"}`, i%20)
		case 1:
			name, args = "list_dir", `{"path":"pkg"}`
		case 3:
			name, args = "search", fmt.Sprintf(`{"pattern":"f%d_x","path":"pkg"}`, i%20)
		}
		s = append(s, script.Turn{ToolCalls: []script.ToolCall{{ID: fmt.Sprintf("call_%d", i+1), Name: name, Arguments: []byte(args)}}})
	}
	return append(s, script.Turn{Content: "Done."})
}

// scaleWorkspace writes 20 Go files of about 1.5 KB.
func scaleWorkspace(tb testing.TB) string {
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := range 20 {
		body := fmt.Sprintf("package pkg\n\n// F%d is one of the functions.\n", i) +
			strings.Repeat(fmt.Sprintf("func f%d_x() int { return %d } // some code in it\n", i, i), 30)
		if err := os.WriteFile(filepath.Join(dir, "pkg", fmt.Sprintf("f%d.go", i)), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// scaleRun runs a session of n tool turns as the server wires one: the
// openai client over loopback, the real gateway with a read tracker and an
// audit log, and the session's journal on disk, compaction at the default
// context size. It returns the per-turn costs and the outcome.
func scaleRun(tb testing.TB, n int) ([]turnCost, *agent.Outcome, *scaleModel) {
	return scaleRunUsage(tb, n, true)
}

// scaleRunUsage is scaleRun with a model that reports its usage or not.
func scaleRunUsage(tb testing.TB, n int, usage bool) ([]turnCost, *agent.Outcome, *scaleModel) {
	root := scaleWorkspace(tb)
	sm := newScaleModel(scaleScript(n))
	sm.noUsage = !usage
	defer sm.srv.Close()
	model, err := openai.New(&openai.Options{BaseURL: sm.srv.URL + "/v1", APIKey: "x", Model: "scale"})
	if err != nil {
		tb.Fatal(err)
	}
	state := tb.TempDir()
	audit, closer, err := tools.OpenAuditLog(state)
	if err != nil {
		tb.Fatal(err)
	}
	defer closer.Close()
	reg := tools.NewRegistry()
	reg.MustRegister(builtin.All()...)
	gw, err := tools.NewGateway(reg, &tools.GatewayOptions{Root: root, Workspace: diskWorkspace{root}, Reads: tools.NewReadTracker(),
		Audit: audit, Policy: tools.DefaultPolicy(tools.ProfileHeadless), Allowed: agent.ModePlan.Tools(false), ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	st, err := session.Open(state, root, nil)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := st.New()
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	srun, err := s.Begin(context.Background(), agent.ModePlan, "read everything")
	if err != nil {
		tb.Fatal(err)
	}
	out := agent.Run(context.Background(), &agent.RunOptions{Model: model, Tools: gw, Mode: agent.ModePlan,
		Task: prompts.TaskData{Instruction: "Read every file of pkg and say what it does."}, MaxTurns: n + 10,
		History: srun.History(), Journal: srun})
	srun.End(out.Status, out.Turns, out.Summary)
	if out.Status != agent.StatusDone || len(out.Steps) != n {
		tb.Fatalf("run: %s after %d steps: %v", out.Status, len(out.Steps), out.Err)
	}
	for _, st := range out.Steps {
		if !st.OK {
			tb.Fatalf("turn %d: %s failed: %s", st.Turn, st.Tool, st.Code)
		}
	}
	sm.meter.mu.Lock()
	defer sm.meter.mu.Unlock()
	return slices.Clone(sm.meter.turns), out, sm
}

// stats are the median and 90th percentile of f over costs[from:to]
// (turns from+1 … to) without the compaction turns, and the mean with
// them (the amortized cost).
func stats(costs []turnCost, from, to int, f func(turnCost) float64) (median, p90, mean float64) {
	var vs []float64
	sum := 0.0
	for _, c := range costs[from:to] {
		v := f(c)
		sum += v
		if !c.compacted {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return vs[len(vs)/2], vs[len(vs)*9/10], sum / float64(to-from)
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

// BenchmarkLongSession_I16 drives the real loop through a 1,000-turn
// session (issue 16, "at scale": turn 1,000 costs ≤ 1.5× turn 10, with
// compaction) and reports the agent's own cost per turn: wall and CPU
// time between a model reply and the next request, allocations, and the
// request's bytes. "@10" is the median over turns 5–15; "@1000" the
// median over turns 901–1000 (more than one compaction cycle, so every
// size of the conversation between two compactions is in it), both
// without the turns that compacted; "-p90@1000" the 90th percentile
// there, "-mean@1000" the mean with the compaction turns (amortized).
// Each figure is the median over the -benchtime runs. Run it with
//
//	go test -run '^$' -bench LongSession_I16 -benchtime 3x ./agent/
//
// "@100" is the median over turns 91–110; the "-ratio" metrics are
// @1000/@10 (issue 27 item 3: at most 1.5 for us-cpu). See also
// BenchmarkLongSession_I27_NoUsage.
func BenchmarkLongSession_I16(b *testing.B) { longSession(b, true) }

// BenchmarkLongSession_I27_NoUsage is BenchmarkLongSession_I16 with a
// model that reports no usage (issue 27 item 3): compaction must not
// depend on the usage the model reports.
//
// Measured 2026-12-03 on the shared 2-core machine under load (load
// average 1.5–2.2 over the last minute, 6–7 over five), 4 runs of each
// (1× and 3×3x), agent CPU per turn, turn 10 / 100 / 1,000 (µs), ratio
// @1000/@10:
//
//	usage reported:  @10 872–1183, @100 1011–1433, @1000 1040–1296; ratio 0.96–1.24 (16 compactions)
//	no usage:        @10 714–1800, @100 1297–1468, @1000 925–1199;  ratio 0.67–1.68 (14 compactions)
//
// The request at turn 1,000 is 57 KB with usage and 53 KB without, so
// compaction runs either way. The ratio is within the 1.5 goal in 7 of 8
// runs; the one above it (1.68) had the lowest @10 (714 µs) at an
// unchanged @1000: the median over 11 turns at turn 10 is what moves
// under load, not the cost of a long session.
//
// Again on a quiet machine (load 1.1–1.7), three rounds of -benchtime 10x
// of both: us-cpu-ratio 1.32, 1.11, 1.47 with usage and 1.49, 1.18, 1.32
// without (@10 880–1237 µs, @1000 1075–1449 µs); a shorter 3x round gave
// 1.60 and 1.28. Medians over 10 runs stay within 1.5.
//
//	go test -run '^$' -bench LongSession_I27_NoUsage -benchtime 3x ./agent/
func BenchmarkLongSession_I27_NoUsage(b *testing.B) { longSession(b, false) }

func longSession(b *testing.B, usage bool) {
	const n = 1000
	metric := map[string]func(turnCost) float64{
		"us-wall":    func(c turnCost) float64 { return float64(c.wall.Microseconds()) },
		"us-cpu":     func(c turnCost) float64 { return float64(c.cpu.Microseconds()) },
		"alloc-KB":   func(c turnCost) float64 { return float64(c.allocBytes) / 1024 },
		"allocs":     func(c turnCost) float64 { return float64(c.allocObjs) },
		"request-KB": func(c turnCost) float64 { return float64(c.reqBytes) / 1024 },
	}
	names := []string{"us-wall", "us-cpu", "alloc-KB", "allocs", "request-KB"}
	got := map[string][]float64{} // metric name → one value per run
	compactions := 0
	for b.Loop() {
		costs, out, sm := scaleRunUsage(b, n, usage)
		if !usage && sm.noUsageReqs < n {
			b.Fatalf("usage was dropped from %d requests of %d: the model may have reported usage", sm.noUsageReqs, n)
		}
		compactions += out.Compactions
		for _, name := range names {
			m10, _, _ := stats(costs, 4, 15, metric[name])
			m100, _, _ := stats(costs, 90, 110, metric[name])
			got[name+"@100"] = append(got[name+"@100"], m100)
			m1000, p90, mean := stats(costs, n-100, n, metric[name])
			got[name+"@10"] = append(got[name+"@10"], m10)
			got[name+"@1000"] = append(got[name+"@1000"], m1000)
			got[name+"-p90@1000"] = append(got[name+"-p90@1000"], p90)
			got[name+"-mean@1000"] = append(got[name+"-mean@1000"], mean)
			got[name+"-ratio"] = append(got[name+"-ratio"], m1000/m10)
		}
	}
	for k, vs := range got {
		slices.Sort(vs)
		b.ReportMetric(vs[len(vs)/2], k)
	}
	b.ReportMetric(float64(compactions)/float64(b.N), "compactions")
	b.Logf("load %s", loadavg())
}
