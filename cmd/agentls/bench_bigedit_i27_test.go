package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/llmtest"
)

// BenchmarkBigEdit_I27 (issue 27 item 2, S4): a one-line edit of a
// 10 MiB file with `agentls exec`, as a user would run it: the model reads
// a page of the file and replaces one line. It reports the server's peak
// RSS (the process's own maximum resident set, from wait4) and the wall
// time next to `sed -i` doing the same edit.
//
//	go test -run '^$' -bench BigEdit -benchtime 3x ./cmd/agentls/
func BenchmarkBigEdit_I27(b *testing.B) {
	bin := benchBinary(b)
	text, sc := bigEditFixture(b)
	var rss []float64
	var took, sed []time.Duration
	for b.Loop() {
		ws := b.TempDir()
		big := filepath.Join(ws, "big.txt")
		if err := os.WriteFile(big, []byte(text.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		kb, d := bigEditOnce(b, bin, ws, sc)
		rss, took = append(rss, mib(kb)), append(took, d)
		start := time.Now()
		if out, err := exec.Command("sed", "-i", "s|// line 100001: EDITED|// line 100001: again|", big).CombinedOutput(); err != nil {
			b.Fatalf("sed: %v %s", err, out)
		}
		sed = append(sed, time.Since(start))
	}
	slices.Sort(rss)
	slices.Sort(took)
	slices.Sort(sed)
	b.ReportMetric(rss[len(rss)/2], "peak-RSS-MiB")
	b.ReportMetric(ms(took[len(took)/2]), "ms/edit")
	b.ReportMetric(ms(sed[len(sed)/2]), "ms/sed")
	b.ReportMetric(0, "ns/op")
}

func bigEditOnce(b *testing.B, bin, ws string, sc llmtest.Script) (int64, time.Duration) {
	srv := llmtest.NewServer(sc)
	defer srv.Close()
	cmd := exec.Command(bin, "exec", "--approve=all", "edit line 100001 of big.txt")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL, "AGENTLS_MODEL=bench", "OPENAI_API_KEY=x")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("agentls exec: %v\n%s", err, out.Bytes())
	}
	took := time.Since(start)
	got, _ := os.ReadFile(filepath.Join(ws, "big.txt"))
	if !bytes.Contains(got, []byte("// line 100001: EDITED")) || len(got) < 10_000_000 {
		b.Fatalf("the edit did not land (%d bytes):\n%s", len(got), out.Bytes())
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, took
}

// bigEditFixture is the 10 MiB file of the big-edit benchmarks and the
// script of a model that reads a page of it and replaces one line.
func bigEditFixture(b *testing.B) (*strings.Builder, llmtest.Script) {
	const lines = 147_000 // 71 bytes a line: 10.4 MB, just under the 10 MiB file limit
	var text strings.Builder
	for i := range lines {
		fmt.Fprintf(&text, "// line %06d: filler text for a large generated file, 52 bytes or so\n", i)
	}
	sc, err := llmtest.ParseScript([]byte(`{"tool_calls":[{"name":"read_file","arguments":{"path":"big.txt","offset":100000,"limit":3}}]}
{"tool_calls":[{"name":"edit_file","arguments":{"path":"big.txt","edits":[{"old_text":"// line 100001: filler","new_text":"// line 100001: EDITED"}]}}]}
{"content":"Edited line 100001."}
`))
	if err != nil {
		b.Fatal(err)
	}
	return &text, sc
}
