package builtin

import (
	"testing"

	"github.com/agentls/agentls/sandbox/netguard"
)

// TestFetchText_B4 pins how a fetched body reaches the model: text as is
// (made valid UTF-8), HTML as text with links resolved against the final
// URL, binary content (by type, signature or NUL) as a one-line note with
// the known size.
func TestFetchText_B4(t *testing.T) {
	png := string(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...))
	cases := []struct {
		name, ctype, body string
		size              int64
		want              string
	}{
		{"png", "image/png", png, 108, "binary content (image/png, 108 bytes)"},
		{"declared size", "image/png", png[:8], 5000, "binary content (image/png, 5000 bytes)"},
		{"nul", "text/plain", "a\x00b", 3, "binary content (text/plain, 3 bytes)"},
		{"no type", "", "\x01\x02", 2, "binary content (unknown type, 2 bytes)"},
		{"latin1", "text/plain", "caf\xe9", 4, "caf\uFFFD"},
		{"text", "text/plain", "404 page not found\n", 19, "404 page not found\n"},
		{"json suffix", "application/vnd.api+json", `{"a":1}`, 7, `{"a":1}`},
		{"yaml", "application/yaml", "a: 1\n", 5, "a: 1\n"},
		{"empty", "application/json", "", 7, ""},
		{"html", "text/html", `<title>T</title><h1>Hi</h1><a href="../a">see</a>`, 50,
			"T\n\n# Hi\n\nsee (https://docs.test/a)"},
		{"xhtml", "application/xhtml+xml", `<p>x</p>`, 8, "x"},
	}
	for _, c := range cases {
		res := &netguard.FetchResult{ContentType: c.ctype, Body: []byte(c.body), Size: c.size,
			FinalURL: "https://docs.test/dir/page"}
		if got := fetchText(res); got != c.want {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
}
