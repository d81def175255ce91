package shell

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// shellCase is one line of testdata/shell.jsonl.
type shellCase struct {
	Cmd      string           `json:"cmd"`
	Expect   sandbox.Decision `json:"expect"` // allow, ask or deny
	Why      string           `json:"why"`
	Category string           `json:"category"`
	Soft     bool             `json:"soft"`
}

func loadShellCases(t testing.TB, name string) []shellCase {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []shellCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c shellCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// shellFixture is a policy over the paths fixture, with HOME outside it.
func shellFixture(t testing.TB) (*Policy, sandboxtest.Fixture) {
	t.Helper()
	fx := sandboxtest.NewFixture(t)
	sandboxtest.MustMkdir(t, filepath.Join(fx.Root, "internal/server"))
	sandboxtest.MustWrite(t, filepath.Join(fx.Root, "internal/server/server.go"), "package server\n")
	if err := os.Symlink("/", filepath.Join(fx.Root, "rootlink")); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(filepath.Dir(fx.Root), "home")
	sandboxtest.MustMkdir(t, filepath.Join(home, ".ssh"))
	return &Policy{Root: fx.Root, Home: home}, fx
}

// scoreShell scores a decision per the README rubric: "right", "unsafe"
// (a security miss) or "over" (over-blocking).
func scoreShell(expect sandbox.Decision, soft bool, got sandbox.Decision) string {
	switch expect {
	case sandbox.Allow:
		if got == sandbox.Allow || soft && got == sandbox.Ask {
			return "right"
		}
		return "over"
	case sandbox.Ask:
		if got != sandbox.Allow || soft {
			return "right"
		}
		return "unsafe"
	}
	if got == sandbox.Deny || soft && got == sandbox.Ask {
		return "right"
	}
	return "unsafe"
}

// TestShellPolicy_Examples runs every case of the shared shell.jsonl and
// fails on any unsafe answer; over-blocking is reported.
func TestShellPolicy_Examples(t *testing.T) {
	p, _ := shellFixture(t)
	cases := loadShellCases(t, "testdata/shell.jsonl")
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	counts := map[string]int{}
	for _, c := range cases {
		v := p.Analyze(c.Cmd)
		s := scoreShell(c.Expect, c.Soft, v.Decision)
		counts[s]++
		switch s {
		case "unsafe":
			t.Errorf("UNSAFE %q: got %s (%s: %s, %q), want %s (soft=%v): %s",
				c.Cmd, v.Decision, v.Rule, v.Reason, v.Command, c.Expect, c.Soft, c.Why)
		case "over":
			t.Logf("over-blocked %q: got %s (%s), want %s", c.Cmd, v.Decision, v.Rule, c.Expect)
		}
		if v.Rule == "" || v.Reason == "" {
			t.Errorf("%q: verdict without rule or reason: %+v", c.Cmd, v)
		}
	}
	t.Logf("shell.jsonl: %d cases: %d right, %d unsafe, %d over-blocked",
		len(cases), counts["right"], counts["unsafe"], counts["over"])
}

// checkShell analyses each command and compares the decision.
func checkShell(t *testing.T, p *Policy, want sandbox.Decision, cmds ...string) {
	t.Helper()
	for _, cmd := range cmds {
		v := p.Analyze(cmd)
		if v.Decision != want {
			t.Errorf("%q: got %s (%s: %s; %q), want %s", cmd, v.Decision, v.Rule, v.Reason, v.Command, want)
		}
	}
}

// TestShellPolicy_Concurrent runs one policy from several goroutines (run
// with -race) and checks that they agree.
func TestShellPolicy_Concurrent(t *testing.T) {
	p, _ := shellFixture(t)
	cases := loadShellCases(t, "testdata/shell.jsonl")
	want := make([]Verdict, len(cases))
	for i, c := range cases {
		want[i] = p.Analyze(c.Cmd)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, c := range cases {
				if got := p.Analyze(c.Cmd); got.Decision != want[i].Decision || got.Rule != want[i].Rule {
					t.Errorf("%q: concurrent verdict %s %s, want %s %s", c.Cmd, got.Decision, got.Rule, want[i].Decision, want[i].Rule)
				}
			}
		})
	}
	wg.Wait()
}

// TestCleanAbsMatchesClean (S5): the analyser's shortcut for the root and
// home gives what filepath.Clean gives, clean or not.
func TestCleanAbsMatchesClean(t *testing.T) {
	for _, s := range []string{"/", "//", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/..", "/.", "/a/b/c",
		"/a/.b", "/a/..b", "/a/b.", "/a/b/..", "/a/b/.", "///a"} {
		if got, want := cleanAbs(s), filepath.Clean(s); got != want {
			t.Errorf("cleanAbs(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestShellAnalyzerReuse (S5) checks that pooled analyzers carry nothing
// from one decision to the next: every command of the corpus and the
// bypass families gets the same verdict analysed in order, in reverse
// order, and from eight goroutines at once.
func TestShellAnalyzerReuse(t *testing.T) {
	p, _ := shellFixture(t)
	var cmds []string
	for _, c := range loadShellCases(t, "testdata/shell.jsonl") {
		cmds = append(cmds, c.Cmd)
	}
	for _, fam := range bypassFamilies {
		cmds = append(cmds, fam.cmds...)
	}
	want := make([]Verdict, len(cmds))
	for i, c := range cmds {
		want[i] = p.Analyze(c)
	}
	same := func(i int, got Verdict) {
		w := want[i]
		if got.Decision != w.Decision || got.Rule != w.Rule || got.Command != w.Command ||
			got.Reason != w.Reason || !slices.Equal(got.Commands, w.Commands) {
			t.Errorf("%q: verdict changed with analyser reuse:\n%+v\n%+v", cmds[i], w, got)
		}
	}
	for i := len(cmds) - 1; i >= 0; i-- {
		same(i, p.Analyze(cmds[i]))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range cmds {
				i := (k*7 + g*13) % len(cmds)
				same(i, p.Analyze(cmds[i]))
			}
		})
	}
	wg.Wait()
}
