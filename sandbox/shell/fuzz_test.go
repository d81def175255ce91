package shell

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/sandbox"
)

// FuzzShellPolicy checks that the analyser never panics, gives the same
// verdict for the same input, and that wrapping a denied command in
// bash -c '…' never turns it into an allowed one.
func FuzzShellPolicy(f *testing.F) {
	p, _ := shellFixture(f)
	for _, c := range loadShellCases(f, "testdata/shell.jsonl") {
		f.Add(c.Cmd)
	}
	for _, fam := range bypassFamilies {
		for _, c := range fam.cmds {
			if len(c) < 2000 {
				f.Add(c)
			}
		}
	}
	for _, fam := range projectFamilies {
		for _, c := range fam.cmds {
			f.Add(c)
		}
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		v1 := p.analyze(cmd)
		v2 := p.analyze(cmd)
		if v1.Decision != v2.Decision || v1.Rule != v2.Rule || v1.Command != v2.Command ||
			v1.Reason != v2.Reason || !slices.Equal(v1.Commands, v2.Commands) {
			t.Fatalf("%q: verdicts differ:\n%+v\n%+v", cmd, v1, v2)
		}
		switch v1.Decision {
		case sandbox.Allow, sandbox.Ask, sandbox.Deny:
		default:
			t.Fatalf("%q: decision %q", cmd, v1.Decision)
		}
		if v1.Rule == "" || v1.Reason == "" {
			t.Fatalf("%q: verdict without rule or reason: %+v", cmd, v1)
		}
		checkSimple(t, cmd, v1)
		if v1.Decision != sandbox.Deny {
			return
		}
		q, err := syntax.Quote(cmd, syntax.LangBash)
		if err != nil {
			return
		}
		if w := p.analyze("bash -c " + q); w.Decision == sandbox.Allow {
			t.Fatalf("%q is denied (%s) but bash -c %s is allowed", cmd, v1.Rule, q)
		}
	})
}

// checkSimple checks the invariants of Verdict.Simple (T19): the verdict's
// decision is the strictest of its commands', and no command's fixed part
// is stricter than its decision, and only commands have a liftable part.
func checkSimple(t *testing.T, cmd string, v Verdict) {
	t.Helper()
	strictest := sandbox.Allow
	for _, c := range v.Simple {
		if c.Decision.Stricter(strictest) {
			strictest = c.Decision
		}
		if c.Fixed.Stricter(c.Decision) || c.Kind != KindCommand && c.Fixed != c.Decision {
			t.Fatalf("%q: command %+v: fixed part %s beyond its decision %s", cmd, c, c.Fixed, c.Decision)
		}
	}
	if v.Rule != "shell.empty" && strictest != v.Decision {
		t.Fatalf("%q: decision %s, but its commands' strictest is %s: %+v", cmd, v.Decision, strictest, v.Simple)
	}
}

// BenchmarkShellPolicy measures decisions per second on one goroutine over
// the example corpus: per second of wall time, and per second of CPU time
// of the process (the honest figure on a loaded machine).
func BenchmarkShellPolicy(b *testing.B) {
	p, _ := shellFixture(b)
	var cmds []string
	for _, c := range loadShellCases(b, "testdata/shell.jsonl") {
		cmds = append(cmds, c.Cmd)
	}
	b.ReportAllocs()
	cpu0 := shellCPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Analyze(cmds[i%len(cmds)])
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
	if cpu := shellCPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "decisions/cpu-s")
	}
}

func shellCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
