package exec

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapBuffer_S4_KeepsHeadAndTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"empty", 10, nil, ""},
		{"fits", 10, []string{"abc", "defghij"}, "abcdefghij"},
		{"one write over", 10, []string{"abcdefghijKLM"}, "abcdefgh\n[… 3 bytes cut …]\nLM"},
		{"many small writes", 10, []string{"abcd", "efgh", "ijkl", "mnop", "q"}, "abcdefgh\n[… 7 bytes cut …]\npq"},
		{"tail wraps", 10, []string{"abcdefgh", "1", "2", "3", "4", "5"}, "abcdefgh\n[… 3 bytes cut …]\n45"},
		{"big write after small", 10, []string{"abcdefgh", "x", "0123456789"}, "abcdefgh\n[… 9 bytes cut …]\n89"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newCapBuffer(tc.limit)
			n := 0
			for _, w := range tc.writes {
				b.Write([]byte(w))
				n += len(w)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if b.Total() != int64(n) {
				t.Errorf("total %d, want %d", b.Total(), n)
			}
		})
	}
}

func TestCapBuffer_S4_MatchesNaiveModel(t *testing.T) {
	// Random write sizes against a model that keeps everything.
	seed := uint32(1)
	rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
	for round := 0; round < 200; round++ {
		limit := 5 + rnd(60)
		b := newCapBuffer(limit)
		var all []byte
		for i := rnd(30); i > 0; i-- {
			w := bytes.Repeat([]byte{byte('a' + rnd(26))}, rnd(limit*2))
			all = append(all, w...)
			b.Write(w)
		}
		head, tail := limit*4/5, limit-limit*4/5
		want := string(all)
		if len(all) > limit {
			want = string(all[:head]) + fmt.Sprintf("\n[… %d bytes cut …]\n", len(all)-limit) + string(all[len(all)-tail:])
		}
		if got := b.String(); got != want {
			t.Fatalf("limit %d, %d bytes: got %q, want %q", limit, len(all), got, want)
		}
	}
}

func TestCapBuffer_S4_CutsOnRuneBoundaries(t *testing.T) {
	b := newCapBuffer(12)                    // head 9 bytes, tail 3: both split an "é"
	b.Write([]byte(strings.Repeat("é", 20))) // 40 bytes
	got := b.String()
	if !utf8.ValidString(got) || strings.ContainsRune(got, utf8.RuneError) {
		t.Errorf("got %q", got)
	}
	if want := "éééé\n[… 30 bytes cut …]\né"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestIsBinary_S4(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"hello\nworld\n", false},
		{"colour \x1b[31mred\x1b[0m\r\n\ttab", false},
		{"ok \xff\xfe end\n", false},
		{"caf\xe9 cr\xe8me br\xfbl\xe9e and more plain ascii text around it", false},
		{"a\x00b", true},
		{"\x7fELF\x02\x01\x01", true},
		{"\x89PNG\r\n\x1a\n", true},
		{"\x1f\x8b\x08", true},
		{"PK\x03\x04", true},
		{"%PDF-1.7\n", true},
		{"\xff\xfe\xfd\xfc\x80\x81\x82 text", true},
		{"\x01\x02\x03\x04\x05abc", true},
		{"日本語のテキスト", false},
	} {
		if got := isBinary([]byte(tc.in)); got != tc.want {
			t.Errorf("isBinary(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	b := newCapBuffer(100)
	b.Write([]byte("\x7fELF" + strings.Repeat("x", 500)))
	if got, want := b.String(), "Binary output (504 bytes). Pipe to a file if needed."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSanitizeUTF8_S4(t *testing.T) {
	for in, want := range map[string]string{
		"plain":            "plain",
		"a\xffb":           "a\uFFFDb",
		"a\xff\xfe\xfdb":   "a\uFFFDb",
		"nul\x00here":      "nul\uFFFDhere",
		"cut \xe2\x82":     "cut \uFFFD",
		"ok \u20ac \xc3(x": "ok \u20ac \uFFFD(x",
	} {
		if got := sanitizeUTF8([]byte(in)); got != want {
			t.Errorf("sanitizeUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzCapBuffer(f *testing.F) {
	f.Add([]byte("hello \xff world"), 7)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		limit = 1 + (limit&0xffff)%500
		b := newCapBuffer(limit)
		for len(data) > 0 {
			k := min(len(data), 1+int(data[0])%37)
			b.Write(data[:k])
			data = data[k:]
		}
		if s := b.String(); !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 in %q", s)
		}
	})
}
