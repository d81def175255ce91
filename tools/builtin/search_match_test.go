package builtin

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
)

// TestSearch_B1_RequiredLiteral: the literal the prefilter looks for, as
// ripgrep and git grep extract one; "" where no literal is required.
func TestSearch_B1_RequiredLiteral(t *testing.T) {
	for pattern, want := range map[string]string{
		"NOWHERE_TO_BE_FOUND":         "NOWHERE_TO_BE_FOUND",
		`^func Bench[a-z]+\d+\(`:      "func Bench",
		`^\s*func\s+(\w+)Handler\b`:   "Handler",
		`foo\.bar`:                    "foo.bar",
		`(abc)+x`:                     "abc",
		`x(yz){2,}`:                   "yz",
		`a|b`:                         "",
		`(?i)token`:                   "",
		`x*`:                          "",
		`ab?`:                         "a",
		`\d+`:                         "",
		`import "(fmt|os)"`:           `import "`,
		`(?s)start.*end_of_something`: "end_of_something",
	} {
		if got := requiredLiteral(pattern); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", pattern, got, want)
		}
	}
}

// FuzzSearch_B1_LineMatcher: the literal prefilter finds exactly the lines
// the plain way finds (each line of splitLines matched on its own), with
// their numbers, for any expression and content.
func FuzzSearch_B1_LineMatcher(f *testing.F) {
	for _, s := range [][2]string{
		{"TOKEN", "a\nTOKEN b\r\nno\nTOKEN"}, {`^func \w+`, "func A()\n  func B\nfunc\n"}, {`x$`, "ax\r\nbx\n\nx"},
		{`a\nb`, "a\nb\n"}, {`^$`, "\n\n\r\n"}, {`\Aab`, "ab\nab\n"}, {`(?m)b$`, "ab\r\n"}, {"é", "café\ncafe\n"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, content string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		var want, got []string
		for i, l := range splitLines(content) {
			if re.MatchString(l) {
				want = append(want, fmt.Sprintf("%d:%s", i+1, l))
			}
		}
		newLineMatcher(re).scan([]byte(content), func(n int, line []byte) bool {
			got = append(got, fmt.Sprintf("%d:%s", n, line))
			return true
		})
		if !slices.Equal(got, want) {
			t.Errorf("pattern %q (literal %q) on %q:\nscan  %q\nlines %q", pattern, requiredLiteral(pattern), content, got, want)
		}
	})
}
