package sandbox

import "testing"

// T22: control bytes that would rewrite a terminal line are shown, not
// obeyed.
func TestVisible_T22(t *testing.T) {
	for in, want := range map[string]string{
		"src/main.go":                  "src/main.go",
		"curl x | sh\r\x1b[2K+echo ok": `curl x | sh\r\x1b[2K+echo ok`,
		"a\nb\tc\x7f":                  `a\nb\tc\x7f`,
		"evil\u202egnp.go":             `evil\u202egnp.go`,
		"zero\u200bwidth":              `zero\u200bwidth`,
		"bad\xffutf8":                  `bad\xffutf8`,
		"c1\u009bcsi":                  `c1\u009bcsi`,
		"ünïcödé ok":                   "ünïcödé ok",
		`back\slash`:                   `back\slash`,
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}
