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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent/script"
	"github.com/agentls/agentls/lspserver/command"
)

// concurrentTurns is what each run of BenchmarkServeConcurrent_I16 does:
// a listing, two reads, a shell command, another read, then its answer.
var concurrentTurns = []struct{ name, args string }{
	{"list_dir", `{"path":"."}`},
	{"read_file", `{"path":"main.go"}`},
	{"run_command", `{"command":"echo hi; ls; cat main.go"}`},
	{"read_file", `{"path":"README.md"}`},
	{"run_command", `{"command":"seq 1 300000"}`},
}

// runModel answers requests of several concurrent runs, each from its
// own script: the run is the "task-N" in the request, its turn the
// number of assistant messages in it. Bodies are not kept.
type runModel struct {
	srv      *httptest.Server
	mu       sync.Mutex // guards requests
	requests int
}

var taskRE = regexp.MustCompile(`task-(\d+)`)

func newRunModel() *runModel {
	m := &runModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	return m
}

func (m *runModel) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.requests++
	m.mu.Unlock()
	run := taskRE.FindSubmatch(body)
	turn := bytes.Count(body, []byte(`"role":"assistant"`))
	t := script.Turn{Content: "Done."}
	if run != nil && turn < len(concurrentTurns) {
		c := concurrentTurns[turn]
		t = script.Turn{ToolCalls: []script.ToolCall{{ID: fmt.Sprintf("call_%s_%d", run[1], turn), Name: c.name, Arguments: json.RawMessage(c.args)}}}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	script.NewHandler(script.Script{t}).ServeHTTP(w, r)
}

// memWatch samples the RSS of a process and of its descendants (the
// sandbox helpers) every few milliseconds.
type memWatch struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu        sync.Mutex // guards the fields below
	peakTotal float64    // MiB, RSS of server + helpers at one moment
	peakPss   float64    // MiB, PSS of server + helpers at one moment
	peakHelp  float64    // MiB, the largest helper's VmHWM
	peakAnon  float64    // MiB, the server's RssAnon (heap, stacks)
	peakFile  float64    // MiB, the server's RssFile (the binary's pages)
	helpers   map[int]bool
}

func watchMem(pid int) *memWatch {
	w := &memWatch{pid: pid, stop: make(chan struct{}), done: make(chan struct{}), helpers: map[int]bool{}}
	go func() {
		defer close(w.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *memWatch) sample() {
	total, pss := procKB(w.pid, "VmRSS"), pssKB(w.pid)
	kids := descendants(w.pid)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range kids {
		total += procKB(k, "VmRSS")
		pss += pssKB(k)
		w.helpers[k] = true
		w.peakHelp = max(w.peakHelp, procKB(k, "VmHWM")/1024)
	}
	w.peakAnon = max(w.peakAnon, procKB(w.pid, "RssAnon")/1024)
	w.peakFile = max(w.peakFile, procKB(w.pid, "RssFile")/1024)
	w.peakTotal = max(w.peakTotal, total/1024)
	w.peakPss = max(w.peakPss, pss/1024)
}

func (w *memWatch) finish() *memWatch {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w
}

// pssKB is the proportional set size of pid in kB: its private pages and
// its share of the pages it shares (the binary's text with the other
// helpers, for one), so that a sum over processes counts each page once.
func pssKB(pid int) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			n, _ := strconv.ParseFloat(strings.Fields(v)[0], 64)
			return n
		}
	}
	return 0
}

// procKB reads a field of /proc/PID/status in kB; 0 if the process is gone.
func procKB(pid int, field string) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseFloat(strings.Fields(v)[0], 64)
			return n
		}
	}
	return 0
}

// descendants lists the processes below pid, from the children files of
// its threads.
func descendants(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(data)) {
			if k, err := strconv.Atoi(s); err == nil && !slices.Contains(out, k) {
				out = append(out, k)
				out = append(out, descendants(k)...)
			}
		}
	}
	return out
}

// answerAll answers the server's requests as an editor that approves
// nothing: null (a declined question, an accepted progress token) and
// applied:false for edits.
func answerAll(_ context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() == "workspace/applyEdit" {
		return map[string]any{"applied": false}, nil
	}
	return nil, nil
}

// BenchmarkServeConcurrent_I16 starts `agentls serve` (the built binary)
// and runs 16 executes at once over LSP stdio, each with five tool turns
// (two shell commands among them) against a scripted model on loopback,
// and reports the peak RSS of the server (VmHWM; issue 16, "at scale":
// ≤ 64 MiB), of server and sandbox helpers together, sampled every 5 ms,
// as RSS (shared pages counted in every process) and as PSS (each page
// once), the largest helper's peak RSS and how many helpers ran, with the
// wall time of the 16 runs.
// Each figure is the median over the -benchtime runs; the load is logged.
//
//	go test -run '^$' -bench ServeConcurrent_I16 -benchtime 3x ./cmd/agentls/
func BenchmarkServeConcurrent_I16(b *testing.B) {
	const runs = 16
	bin := benchBinary(b)
	var hwm, anon, file, total, pss, helper, helpers, wall []float64
	for b.Loop() {
		model := newRunModel()
		p := startServeWith(b, bin, answerAll, "OPENAI_BASE_URL="+model.srv.URL+"/v1", "AGENTLS_MODEL=bench", "OPENAI_API_KEY=x")
		for name, body := range map[string]string{"main.go": "package main\n\nfunc main() {\n" + strings.Repeat("\tprintln(\"line\")\n", 100) + "}\n",
			"README.md": "# bench\n" + strings.Repeat("Some text of the readme.\n", 40)} {
			if err := os.WriteFile(filepath.Join(p.root, name), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		w := watchMem(p.cmd.Process.Pid)
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, runs)
		for i := range runs {
			wg.Go(func() {
				args := command.Args{Target: command.Target{URI: "file://" + filepath.Join(p.root, "main.go")},
					Instruction: fmt.Sprintf("task-%d: look around and run the checks", i)}
				var res command.Result
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				if _, err := p.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": command.Execute, "arguments": []any{args}}, &res); err != nil {
					errs <- fmt.Errorf("run %d: %v", i, err)
					return
				}
				if res.Status != command.StatusDone || len(res.Steps) != len(concurrentTurns) {
					errs <- fmt.Errorf("run %d: %s after %d steps: %s", i, res.Status, len(res.Steps), res.Summary)
					return
				}
				for _, st := range res.Steps {
					if !st.OK {
						errs <- fmt.Errorf("run %d: %s failed: %s", i, st.Tool, st.Code)
						return
					}
				}
			})
		}
		wg.Wait()
		wall = append(wall, time.Since(start).Seconds())
		close(errs)
		for err := range errs {
			b.Error(err)
		}
		m := w.finish()
		hwm = append(hwm, procKB(p.cmd.Process.Pid, "VmHWM")/1024)
		anon, file = append(anon, m.peakAnon), append(file, m.peakFile)
		total, pss = append(total, m.peakTotal), append(pss, m.peakPss)
		helper, helpers = append(helper, m.peakHelp), append(helpers, float64(len(m.helpers)))
		p.stop(b)
		model.srv.Close()
		if b.Failed() {
			b.FailNow()
		}
	}
	median := func(vs []float64) float64 { slices.Sort(vs); return vs[len(vs)/2] }
	b.ReportMetric(median(hwm), "MiB-server-peak")
	b.ReportMetric(median(anon), "MiB-server-anon-peak")
	b.ReportMetric(median(file), "MiB-server-file-peak")
	b.ReportMetric(median(total), "MiB-server+helpers-RSS-peak")
	b.ReportMetric(median(pss), "MiB-server+helpers-PSS-peak")
	b.ReportMetric(median(helper), "MiB-largest-helper")
	b.ReportMetric(median(helpers), "helpers")
	b.ReportMetric(median(wall), "s-16-runs")
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("load %s", strings.TrimSpace(string(load)))
}
