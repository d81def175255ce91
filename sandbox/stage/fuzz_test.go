package stage

import (
	"strings"
	"testing"
)

// FuzzIndexNames: the git index reader never panics or hangs on any
// input, and every name it returns is free of NUL bytes.
func FuzzIndexNames(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 62) + "\x00a.go\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01" + strings.Repeat("\x00", 60) + "\x00\x04main\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		names, ok := indexNames(b)
		for _, n := range names {
			if ok && strings.Contains(n, "\x00") {
				t.Fatalf("name with NUL: %q", n)
			}
		}
	})
}

// FuzzClassifyPath: no path is both merged and inside a control name or
// agentls' own directory, in any spelling the classifier gets.
func FuzzClassifyPath(f *testing.F) {
	for _, s := range []string{"src/a.go", ".git/config", "a/.GIT/hooks/x", ".agentls/p.json", "x/y.pth", ".githooks/a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		cl, _ := classifyPath(p, &Rules{})
		if cl != Land {
			return
		}
		for c := range strings.SplitSeq(strings.ToLower(p), "/") {
			if c == ".git" || c == ".agentls" || c == ".vscode" || c == ".githooks" || c == ".husky" {
				t.Fatalf("%q lands", p)
			}
		}
	})
}
