package agent

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// refExpr is the expression findRefs replaces (issue 16); the tests hold
// the scanner to exactly its matches.
const refExpr = "(?:^|[\\s(\\[{,;])@(\"[^\"\\n]{1,1000}\"|[^\\s\"'`,;()\\[\\]{}<>]{1,1000})"

func refsByExpr(re *regexp.Regexp, s string) []refSpan {
	var out []refSpan
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, refSpan{m[2], m[3]})
	}
	return out
}

func checkRefs(t *testing.T, re *regexp.Regexp, s string) {
	t.Helper()
	got, want := findRefs(s), refsByExpr(re, s)
	if len(got) != len(want) {
		t.Fatalf("findRefs(%q) = %v, the expression finds %v", clip(s, 300), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("findRefs(%q) = %v, the expression finds %v", clip(s, 300), got, want)
		}
	}
}

// TestFindRefs_Issue16_SameAsExpression: the scanner finds what the
// regular expression it replaced found, on hand-picked edge cases and on
// random inputs over the characters that matter (quotes, brackets, the
// lead characters, newlines, multi-byte and invalid UTF-8, runs around
// the 1,000-character bound).
func TestFindRefs_Issue16_SameAsExpression(t *testing.T) {
	re := regexp.MustCompile(refExpr)
	long := strings.Repeat("a", 999)
	cases := []string{
		"", "@", "@@", "@a", " @a", "x@a", "a @b @c", "@a,@b", "(@a)", "[@a] {@b} ;@c ,@d",
		`@"a b.go"`, `@""`, `@"a`, "@\"a\nb\"", `@"a"@b`, `@"x" @y`, "\t@a\n@b\r@c\f@d",
		"@a.go.", "@héllo.go", "@日本.go", "@\xff\xfe", " @\xff", "@a'b", "@a`b", "@a<b>",
		"@" + long, "@" + long + "a", "@" + long + "ab", " @" + long + "ab @c",
		`@"` + long + `"`, `@"` + long + `a"`, `@"` + long + `ab"`, `@"` + long + `ab (@c)"`,
		"@" + strings.Repeat("é", 1001) + " @x", `@"` + strings.Repeat("é", 1000) + `"`,
		"\v@a", "\u00a0@a", "@a\u00a0b",
	}
	for _, s := range cases {
		checkRefs(t, re, s)
	}
	alphabet := []string{"@", "@", "\"", " ", "\n", "\t", "(", ")", "[", "{", ",", ";", "'", "`", "<",
		"a", "b", ".", "/", "é", "\xff", "\v", strings.Repeat("a", 500), strings.Repeat("é", 300)}
	rng := rand.New(rand.NewPCG(16, 16))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		checkRefs(t, re, b.String())
	}
}

// FuzzFindRefs compares the scanner with the expression on any input.
func FuzzFindRefs(f *testing.F) {
	for _, s := range []string{"@a", ` @"a b"`, "(@x) @y,", "@\xff"} {
		f.Add(s)
	}
	re := regexp.MustCompile(refExpr)
	f.Fuzz(func(t *testing.T, s string) { checkRefs(t, re, s) })
}

// TestExpandInput_Issue16_FirstCallCheap: the first @reference expansion
// of a process (every headless run's, before its first model request)
// compiles nothing: it allocates a handful of times, not the ≈ 6,000 times
// the bounded regular expression took to compile. Counted in a fresh
// process (this test binary, run again for this test alone), so that no
// other test has paid a one-time cost first.
func TestExpandInput_Issue16_FirstCallCheap(t *testing.T) {
	if os.Getenv("AGENTLS_TEST_FIRST_EXPAND") == "1" {
		read := files(map[string]string{"main.go": "package main\n"})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, _ := ExpandInput(context.Background(), "make the greeting in @main.go say hello, world", read)
		runtime.ReadMemStats(&after)
		if !strings.Contains(out, "package main") {
			t.Fatalf("not inlined: %q", out)
		}
		if n := after.Mallocs - before.Mallocs; n > 100 {
			t.Fatalf("the first ExpandInput allocated %d times, want ≤ 100 (nothing compiled)", n)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestExpandInput_Issue16_FirstCallCheap$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AGENTLS_TEST_FIRST_EXPAND=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
