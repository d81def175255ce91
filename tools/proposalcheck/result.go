package proposalcheck

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/sandbox"
)

// Result is the outcome of the checks of one proposal.
type Result struct {
	Outcomes []Outcome
	// NotRun says why no check could run (no staging here); "" otherwise.
	NotRun string
	// TimedOut: the checks were stopped after Limit.
	TimedOut bool
	Limit    time.Duration
	Took     time.Duration
}

// Outcome is one check's result.
type Outcome struct {
	Check    Check
	OK       bool
	TimedOut bool
	Output   string    // stderr then stdout, bounded by the sandbox
	Problems []Problem // parsed from Output when the check failed
}

// Problem is one located complaint of a check.
type Problem struct {
	Path    string // workspace-relative, slash separated
	Line    int    // 1-based
	Col     int    // 1-based, 0 when unknown
	Message string
}

// Failed reports whether a check ran and failed.
func (r *Result) Failed() bool {
	for _, o := range r.Outcomes {
		if !o.OK && !o.TimedOut {
			return true
		}
	}
	return false
}

// Problems lists the problems of every failed check.
func (r *Result) Problems() []Problem {
	var out []Problem
	for _, o := range r.Outcomes {
		out = append(out, o.Problems...)
	}
	return out
}

// Summary is the line a question shows: "checks: builds; go vet clean",
// "checks: go vet: 2 problems: a.go:3: …", "checks: timed out after 60s";
// "" when there were no checks. Text from the checks is made visible.
func (r *Result) Summary() string {
	switch {
	case r.NotRun != "":
		return "checks: not run: " + r.NotRun
	case len(r.Outcomes) == 0:
		return ""
	}
	var parts []string
	for _, o := range r.Outcomes {
		switch {
		case o.TimedOut:
			parts = append(parts, fmt.Sprintf("timed out after %s (%s)", seconds(r.Limit), o.Check.Name))
		case o.OK:
			parts = append(parts, okPhrase(o.Check.Name))
		default:
			parts = append(parts, failPhrase(o))
		}
	}
	return sandbox.Visible("checks: " + strings.Join(parts, "; "))
}

func okPhrase(name string) string {
	switch name {
	case "go build":
		return "builds"
	case "compileall":
		return "compiles"
	case "go vet", "tsc":
		return name + " clean"
	}
	return name + " passes"
}

// failPhrase is "go vet: 2 problems: a.go:3: msg; b.go:9: msg" (at most
// three shown), or the output's first line when nothing was located.
func failPhrase(o Outcome) string {
	if len(o.Problems) == 0 {
		return o.Check.Name + ": failed: " + cut(firstLine(o.Output), 200)
	}
	n := len(o.Problems)
	word := "problems"
	if n == 1 {
		word = "problem"
	}
	var shown []string
	for i, p := range o.Problems {
		if i == 3 {
			shown = append(shown, "…")
			break
		}
		shown = append(shown, fmt.Sprintf("%s:%d: %s", p.Path, p.Line, cut(p.Message, 160)))
	}
	return fmt.Sprintf("%s: %d %s: %s", o.Check.Name, n, word, strings.Join(shown, "; "))
}

// goLine is "path:line[:col]: message" (go build, go vet, tsc's
// "path(line,col): error" is goParen).
// They are compiled on first use: nothing of agentls compiles at start
// (issue 16).
var (
	goLine   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:vet: )?(\S[^:\s]*):(\d+)(?::(\d+))?: (.+)$`) })
	goParen  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S[^(\s]*)\((\d+),(\d+)\): (.+)$`) })
	pyFile   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*File "([^"]+)", line (\d+)`) })
	pyErrEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\w*Error|\w*Warning): (.+)$`) })
)

// parseProblems finds the located problems in a check's output; paths
// are made workspace-relative, and those outside the workspace dropped.
func parseProblems(out, root string) []Problem {
	var ps []Problem
	var py *Problem
	for _, line := range strings.Split(out, "\n") {
		if m := pyFile().FindStringSubmatch(line); m != nil {
			py = &Problem{Path: m[1], Line: atoi(m[2])}
			continue
		}
		if m := pyErrEnd().FindStringSubmatch(line); m != nil && py != nil {
			py.Message = m[1] + ": " + m[2]
			ps = appendRel(ps, *py, root)
			py = nil
			continue
		}
		m := goLine().FindStringSubmatch(line)
		if m == nil {
			m = goParen().FindStringSubmatch(line)
		}
		if m != nil && py == nil {
			ps = appendRel(ps, Problem{Path: m[1], Line: atoi(m[2]), Col: atoi(m[3]), Message: m[4]}, root)
		}
	}
	return ps
}

func appendRel(ps []Problem, p Problem, root string) []Problem {
	if filepath.IsAbs(p.Path) {
		rel, err := filepath.Rel(root, p.Path)
		if err != nil {
			return ps
		}
		p.Path = rel
	}
	p.Path = filepath.ToSlash(filepath.Clean(p.Path))
	if !filepath.IsLocal(p.Path) || p.Line <= 0 {
		return ps
	}
	return append(ps, p)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64) + "s"
}
