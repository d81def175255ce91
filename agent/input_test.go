package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/prompts"
)

// files is a reference reader over a map; "../" paths are refused.
func files(m map[string]string) func(context.Context, string) ([]byte, error) {
	return func(_ context.Context, p string) ([]byte, error) {
		switch {
		case strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/"):
			return nil, fmt.Errorf("%w: outside", ErrPathRefused)
		case p == "locked.txt":
			return nil, errors.New("i/o error")
		}
		s, ok := m[p]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return []byte(s), nil
	}
}

func codes(events []Event) string {
	var out []string
	for _, e := range events {
		out = append(out, string(e.Kind)+":"+e.Code)
	}
	return strings.Join(out, ",")
}

// TestExpandInput_A12 covers @path references: inlined, missing, refused,
// unreadable, binary, repeated, quoted, followed by punctuation, and words
// that are not references.
func TestExpandInput_A12(t *testing.T) {
	read := files(map[string]string{
		"a.go":         "package a\n",
		"dir/b.md":     "# B\n```go\nx\n```\n",
		"my file.txt":  "spaced",
		"bin.dat":      "\x00\x01",
		"Makefile":     "all:\n",
		"alice":        "not a file anyone means",
		"ticks/c.txt":  "````",
		"pkg/util.go,": "never read",
	})
	tests := []struct {
		name, in   string
		want       []string // substrings of the output
		wantNot    []string
		wantEvents string
	}{
		{name: "no reference", in: "just text, mail me at a@b.c", want: []string{"just text, mail me at a@b.c"}, wantNot: []string{"Referenced"}},
		{name: "inlined", in: "explain @a.go please",
			want: []string{"explain @a.go please\n\nReferenced files:\n\n@a.go:\n```\npackage a\n```"}, wantEvents: "input:"},
		{name: "trailing punctuation", in: "see @a.go.", want: []string{"see @a.go.", "@a.go:\n```"}, wantEvents: "input:"},
		{name: "fence longer than the file's", in: "@dir/b.md", want: []string{"````\n# B\n```go\nx\n```\n````"}, wantEvents: "input:"},
		{name: "fence longer than four ticks", in: "@ticks/c.txt", want: []string{"`````\n````\n`````"}, wantEvents: "input:"},
		{name: "quoted path with a space", in: `read @"my file.txt" now`, want: []string{`read @"my file.txt" now`, "@my file.txt:\n```\nspaced"}, wantEvents: "input:"},
		{name: "missing file keeps the text", in: "fix @nope.go now", want: []string{"fix @nope.go [file not found] now"}, wantEvents: "warning:ref_missing"},
		{name: "outside the workspace is refused", in: "cat @../../etc/passwd", want: []string{"@../../etc/passwd [refused: outside the workspace]"},
			wantNot: []string{"Referenced"}, wantEvents: "warning:ref_refused"},
		{name: "unreadable", in: "@locked.txt", want: []string{"@locked.txt [could not be read]"}, wantEvents: "warning:ref_unreadable"},
		{name: "binary", in: "@bin.dat", want: []string{"@bin.dat [binary file, not inlined]"}, wantEvents: "warning:ref_binary"},
		{name: "a file without extension", in: "@Makefile", want: []string{"@Makefile:\n```\nall:"}, wantEvents: "input:"},
		{name: "a name that is no file is left alone", in: "ask @bob", want: []string{"ask @bob"}, wantNot: []string{"["}},
		{name: "repeated reference inlined once", in: "@a.go and @a.go", want: []string{"@a.go and @a.go\n"}, wantEvents: "input:"},
		{name: "comma ends the path", in: "@pkg/util.go, @a.go", want: []string{"@pkg/util.go [file not found], @a.go"},
			wantEvents: "warning:ref_missing,input:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, events := ExpandInput(t.Context(), tt.in, read)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output misses %q:\n%s", w, got)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("output has %q:\n%s", w, got)
				}
			}
			if c := codes(events); c != tt.wantEvents {
				t.Errorf("events = %q, want %q", c, tt.wantEvents)
			}
			if strings.Count(got, "package a") > 1 {
				t.Errorf("inlined twice:\n%s", got)
			}
		})
	}
}

// TestExpandInput_A12_Limits: input over 100,000 characters is cut on a
// rune boundary with a message; inlined files are bounded one by one, in
// total and in number.
func TestExpandInput_A12_Limits(t *testing.T) {
	long := strings.Repeat("é", MaxInputChars+10)
	got, events := ExpandInput(t.Context(), long, nil)
	if !utf8.ValidString(got) || utf8.RuneCountInString(got) > MaxInputChars+100 ||
		!strings.HasSuffix(got, "[input cut at 100,000 characters: split it into smaller requests]") || codes(events) != "warning:input_cut" {
		t.Errorf("cut: %d runes, events %q, tail %q", utf8.RuneCountInString(got), codes(events), got[len(got)-80:])
	}
	if got, events := ExpandInput(t.Context(), strings.Repeat("x", MaxInputChars), nil); len(got) != MaxInputChars || len(events) != 0 {
		t.Errorf("input of exactly the limit was changed")
	}

	m := map[string]string{}
	var refs []string
	for i := range 15 {
		name := fmt.Sprintf("f%d.txt", i)
		m[name] = strings.Repeat("z", 25000)
		refs = append(refs, "@"+name)
	}
	got, events = ExpandInput(t.Context(), strings.Join(refs, " "), files(m))
	if n := strings.Count(got, "[… cut at"); n != 3 {
		t.Errorf("%d files cut, want 3 (20,000 bytes each fills the 60,000 budget)", n)
	}
	if len(got) > maxRefTotal+5000 {
		t.Errorf("output has %d bytes", len(got))
	}
	if n := strings.Count(codes(events), "ref_skipped"); n != 12 {
		t.Errorf("%d references skipped, want 12: %s", n, codes(events))
	}
}

// TestRun_A12_ReadRef: a run inlines references of its instruction and
// reports what happened.
func TestRun_A12_ReadRef(t *testing.T) {
	m := &scripted{resps: []*Response{{Content: "ok"}}}
	var events []Event
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, ReadRef: files(map[string]string{"a.go": "package a"}),
		Task: prompts.TaskData{Instruction: "explain @a.go and @gone.go"}, Reporter: ReporterFunc(func(e Event) { events = append(events, e) })})
	task := m.reqs[0].Messages[1].Content
	if out.Status != StatusDone || !strings.Contains(task, "package a") || !strings.Contains(task, "@gone.go [file not found]") {
		t.Errorf("task = %q", task)
	}
	if !hasEvent(events, EventInput) || !hasEvent(events, EventWarning) {
		t.Errorf("events = %+v", events)
	}
}
