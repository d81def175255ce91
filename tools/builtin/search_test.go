package builtin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

func TestSearch_B1(t *testing.T) {
	h := newHarness(t)
	h.write(t, "a/one.go", "package a\n// TOKEN here\n")
	h.write(t, "a/b/two.go", "  TOKEN   indented  \nnothing\nTOKEN again\n")
	h.write(t, ".git/TOKEN_HEAD", "TOKEN\n")
	h.write(t, "node_modules/x/index.js", "TOKEN\n")
	h.write(t, "bin.dat", "TOKEN\x00\x01")
	h.write(t, "huge.txt", "TOKEN\n"+strings.Repeat("x", 1<<20))
	h.write(t, "wide.txt", "TOKEN"+strings.Repeat("y", 500)+"\n")
	h.symlink(t, "escape", "{{OUTSIDE}}")                // a directory outside
	h.symlink(t, "escape.txt", "{{OUTSIDE}}/secret.txt") // a file outside; it holds "token"
	h.symlink(t, "loop", ".")                            // would recurse forever
	h.symlink(t, "alias.go", "a/one.go")                 // inside: followed
	h.ws.overlay["README.md"] = "# demo\nTOKEN unsaved\n"

	got := wantOK(t, h.call(t, "search", `{"pattern":"TOKEN|token"}`))
	want := strings.Join([]string{
		"README.md:2: TOKEN unsaved",
		"a/b/two.go:1: TOKEN   indented",
		"a/b/two.go:3: TOKEN again",
		"a/one.go:2: // TOKEN here",
		"alias.go:2: // TOKEN here",
		"wide.txt:1: TOKEN" + strings.Repeat("y", 195) + "…",
	}, "\n")
	if got != want {
		t.Errorf("search output:\n%s\nwant:\n%s", got, want)
	}

	// A narrower path, and a single file.
	got = wantOK(t, h.call(t, "search", `{"pattern":"again","path":"a"}`))
	if got != "a/b/two.go:3: TOKEN again" {
		t.Errorf("search in a = %q", got)
	}
	got = wantOK(t, h.call(t, "search", `{"pattern":"^package","path":"a/one.go"}`))
	if got != "a/one.go:1: package a" {
		t.Errorf("search in a file = %q", got)
	}
	if got := wantOK(t, h.call(t, "search", `{"pattern":"NOT_THERE_\\d+"}`)); got != "no matches" {
		t.Errorf("no matches = %q", got)
	}
}

func TestSearch_B1_Limits(t *testing.T) {
	h := newHarness(t)
	var b strings.Builder
	for i := range 150 {
		fmt.Fprintf(&b, "match %d\n", i)
	}
	h.write(t, "many.txt", b.String())
	got := wantOK(t, h.call(t, "search", `{"pattern":"match"}`))
	if n := strings.Count(got, "many.txt:"); n != searchMaxMatches {
		t.Errorf("%d matches shown; want %d", n, searchMaxMatches)
	}
	wantContains(t, got, "many.txt:100: match 99\n(more matches cut after 100")
	// Exactly the limit: no note.
	h.write(t, "many.txt", strings.Repeat("match\n", 100))
	if got := wantOK(t, h.call(t, "search", `{"pattern":"match"}`)); strings.Contains(got, "cut") {
		t.Errorf("note at exactly the limit:\n%s", got)
	}
}

func TestSearch_T3_Errors(t *testing.T) {
	h := newHarness(t)
	for _, p := range []string{`(unclosed`, `a{2,1}`, `(?<=x)y`, `\p{Nope}`} {
		te := wantErr(t, h.call(t, "search", map[string]string{"pattern": p}), tools.CodeInvalidArgs, "pattern")
		wantContains(t, te.Recovery, "RE2")
	}
	wantErr(t, h.call(t, "search", `{"pattern":"x","path":"nope"}`), tools.CodeNotFound, "path")
	h.noEdits = true // search needs no editor
	wantOK(t, h.call(t, "search", `{"pattern":"main"}`))
}
