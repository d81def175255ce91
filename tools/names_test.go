package tools

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestNames_Issue16_SameAsExpressions: the hand-written name checks accept
// exactly what the regular expressions they replaced accepted.
func TestNames_Issue16_SameAsExpressions(t *testing.T) {
	checks := []struct {
		name string
		re   *regexp.Regexp
		f    func(string) bool
	}{
		{"validToolName", regexp.MustCompile(`^[a-z0-9_]{1,64}$`), validToolName},
		{"plainKeyName", regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,23}$`), plainKeyName},
	}
	cases := []string{"", "a", "A", "_", "0", "read_file", "Read_file", "a-b", "a b", "a\n", "\na", "é", "aé",
		strings.Repeat("a", 23), strings.Repeat("a", 24), strings.Repeat("a", 25),
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65), "dney", "x\x00", "z{", "Z[", "9a"}
	alphabet := "aAzZ09_-. \n\x00é{[`@/"
	rng := rand.New(rand.NewPCG(16, 64))
	for range 5000 {
		var b strings.Builder
		n := rng.IntN(70)
		for range n {
			if rng.IntN(4) == 0 {
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			} else {
				b.WriteByte("abcXYZ_19"[rng.IntN(9)])
			}
		}
		cases = append(cases, b.String())
	}
	for _, c := range checks {
		for _, s := range cases {
			if got, want := c.f(s), c.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, the expression says %v", c.name, s, got, want)
			}
		}
	}
}
