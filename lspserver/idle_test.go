package lspserver_test

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/llmtest"
	"github.com/agentls/agentls/agent/openai"
	"github.com/agentls/agentls/lspserver"
	"github.com/agentls/agentls/lspserver/command"
	"github.com/agentls/agentls/lspserver/lsptest"
)

// openFDs counts this process's open file descriptors.
func openFDs(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// idleWithin waits at most d for fds and goroutines to come back within
// slack of the baseline (the other side of a closed connection takes a
// moment to notice), and returns what it saw last.
func idleWithin(t testing.TB, d time.Duration, baseFDs, baseG, slack int) (fds, gs int) {
	deadline := time.Now().Add(d)
	for {
		fds, gs = openFDs(t), runtime.NumGoroutine()
		if (fds <= baseFDs+slack && gs <= baseG+slack) || time.Now().After(deadline) {
			return fds, gs
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A1, #12 item 6: model connections do not pile up across runs. Each run
// gets its own Model over the server's one shared HTTP client (as
// `agentls serve` wires it), and the run's end closes what is idle. Here
// every run talks to an endpoint of its own, the worst case for a pool;
// before, 100 runs left 89 idle connections with their goroutines until
// 100 s of idleness.
func TestServer_A1_NoIdleModelConnectionsPileUp(t *testing.T) {
	const runs = 20
	script, err := llmtest.ParseScript([]byte(`{"content":"Plan: nothing to do."}`))
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for range runs {
		srv := llmtest.NewServer(script)
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	httpc := openai.NewHTTPClient()
	t.Cleanup(httpc.CloseIdleConnections)
	next := 0
	h := start(t, setup{files: map[string]string{"a.go": "package a\n"}, opts: func(o *lspserver.Options) {
		o.NewModel = func() (agent.Model, error) {
			u := urls[next%runs]
			next++
			return openai.New(&openai.Options{BaseURL: u, Model: "m", MaxRetries: -1, HTTPClient: httpc})
		}
	}})
	baseFDs, baseG := openFDs(t), runtime.NumGoroutine()
	for range runs {
		if res := h.mustRun(command.Plan, map[string]any{"uri": h.uri("a.go"), "instruction": "x"}); res.Status != "done" {
			t.Fatalf("status %q", res.Status)
		}
	}
	fds, gs := idleWithin(t, 5*time.Second, baseFDs, baseG, 0)
	t.Logf("after %d runs: fds %d → %d, goroutines %d → %d", runs, baseFDs, fds, baseG, gs)
	if fds > baseFDs+5 || gs > baseG+5 {
		t.Errorf("after %d runs and 5 s: fds %d (baseline %d), goroutines %d (baseline %d)", runs, fds, baseFDs, gs, baseG)
	}
}

// BenchmarkSequentialRuns runs 100 plan runs one after the other in one
// server, each against a model endpoint of its own, and reports the
// process's fds and goroutines idle before, and at most 5 s after, the
// runs (#12 item 6; target: back to the baseline ± 5; before, 15 → 104
// fds and 25 → 193 goroutines).
//
//	go test -run '^$' -bench SequentialRuns -benchtime 1x ./lspserver/
func BenchmarkSequentialRuns(b *testing.B) {
	const runs = 100
	script, err := llmtest.ParseScript([]byte(`{"content":"Plan: nothing to do."}`))
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	if err := os.WriteFile(root+"/a.go", []byte("package a\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	var sum [4]float64
	for b.Loop() {
		var urls []string
		for range runs {
			srv := llmtest.NewServer(script)
			defer srv.Close()
			urls = append(urls, srv.URL)
		}
		httpc := openai.NewHTTPClient()
		next := 0
		c := lsptest.New(b, &lsptest.Options{Server: &lspserver.Options{NewModel: func() (agent.Model, error) {
			u := urls[next%runs]
			next++
			return openai.New(&openai.Options{BaseURL: u, Model: "m", MaxRetries: -1, HTTPClient: httpc})
		}}})
		if _, err := c.Initialize(b.Context(), lsptest.InitializeParams(root, nil)); err != nil {
			b.Fatal(err)
		}
		baseFDs, baseG := openFDs(b), runtime.NumGoroutine()
		for range runs {
			res, err := c.ExecuteCommand(b.Context(), command.Plan, map[string]any{"uri": lsptest.FileURI(root + "/a.go"), "instruction": "x"})
			if err != nil || res.Status != "done" {
				b.Fatalf("run: %v %+v", err, res)
			}
		}
		fds, gs := idleWithin(b, 5*time.Second, baseFDs, baseG, 0)
		sum[0] += float64(baseFDs)
		sum[1] += float64(fds)
		sum[2] += float64(baseG)
		sum[3] += float64(gs)
		c.Close()
		httpc.CloseIdleConnections()
	}
	n := float64(b.N)
	b.ReportMetric(sum[0]/n, "fds-idle")
	b.ReportMetric(sum[1]/n, "fds-after")
	b.ReportMetric(sum[2]/n, "goroutines-idle")
	b.ReportMetric(sum[3]/n, "goroutines-after")
}
