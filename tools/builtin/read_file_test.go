package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestReadFile_B1(t *testing.T) {
	h := newHarness(t)
	h.write(t, "big.txt", numbered(1, 3000))
	h.write(t, "wide.txt", strings.Repeat(strings.Repeat("w", 99)+"\n", 500))
	h.write(t, "long.txt", strings.Repeat("é", 3000)+"\n")
	h.write(t, "crlf.txt", "a\r\nb\r\n")
	h.write(t, "empty.txt", "")
	h.write(t, "nul.bin", "abc\x00def")
	h.write(t, "latin1.txt", "caf\xe9\n")
	h.write(t, "nonl.txt", "x\ny")
	h.symlink(t, "link.go", "src/main.go")
	cases := []struct {
		name, args string
		want       []string // substrings of the output
		not        []string
	}{
		{name: "whole file", args: `{"path":"src/main.go"}`,
			want: []string{"     1\tpackage main\n", "     4\t\tprintln(\"hi\")\n", "(lines 1-5 of 5)"}},
		{name: "default limit pages", args: `{"path":"big.txt"}`,
			want: []string{"     1\t1\n", "  2000\t2000\n", "(lines 1-2000 of 3000; continue with offset=2001)"},
			not:  []string{"\t2001"}},
		{name: "offset and limit", args: `{"path":"big.txt","offset":2001,"limit":10}`,
			want: []string{"  2001\t2001\n", "  2010\t2010\n", "(lines 2001-2010 of 3000; continue with offset=2011)"},
			not:  []string{"\t2000\n", "\t2011"}},
		{name: "last page", args: `{"path":"big.txt","offset":2991}`, want: []string{"(lines 2991-3000 of 3000)"}},
		{name: "integer as float", args: `{"path":"big.txt","offset":3.0,"limit":1}`, want: []string{"(lines 3-3 of 3000;"}},
		{name: "output budget", args: `{"path":"wide.txt"}`, want: []string{"output limit reached; continue with offset="}},
		{name: "long line cut", args: `{"path":"long.txt"}`, want: []string{"… [line cut]", "(lines 1-1 of 1)"}},
		{name: "CRLF shown without CR", args: `{"path":"crlf.txt"}`, want: []string{"     1\ta\n     2\tb\n"}, not: []string{"\r"}},
		{name: "no final newline", args: `{"path":"nonl.txt"}`, want: []string{"     2\ty\n(lines 1-2 of 2)"}},
		{name: "empty", args: `{"path":"empty.txt"}`, want: []string{"(empty file)"}},
		{name: "NUL is binary", args: `{"path":"nul.bin"}`, want: []string{"binary file, 7 bytes"}},
		{name: "invalid UTF-8 is binary", args: `{"path":"latin1.txt"}`, want: []string{"binary file, 5 bytes"}},
		{name: "symlink inside", args: `{"path":"link.go"}`, want: []string{"package main"}},
		{name: "absolute inside", args: fmt.Sprintf(`{"path":%q}`, filepath.Join(h.root, "README.md")), want: []string{"# demo"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := wantOK(t, h.call(t, "read_file", c.args))
			wantContains(t, got, c.want...)
			for _, s := range c.not {
				if strings.Contains(got, s) {
					t.Errorf("output contains %q", s)
				}
			}
			if len(got) > tools.MaxResultChars {
				t.Errorf("output %d chars, over MaxResultChars", len(got))
			}
		})
	}
}

func TestReadFile_B1_Errors(t *testing.T) {
	h := newHarness(t)
	h.write(t, "small.txt", "one\ntwo\n")
	wantErr(t, h.call(t, "read_file", `{"path":"nope.go"}`), tools.CodeNotFound, "path")
	te := wantErr(t, h.call(t, "read_file", `{"path":"src"}`), tools.CodeInvalidArgs, "path")
	wantContains(t, te.Recovery, "list_dir")
	te = wantErr(t, h.call(t, "read_file", `{"path":"small.txt","offset":3}`), tools.CodeInvalidArgs, "offset")
	wantContains(t, te.Reason, "2 lines")
	wantErr(t, h.call(t, "read_file", `{"path":"README.md/x"}`), tools.CodeInvalidArgs, "path")
}

// TestReadFile_E9_OverlayWins: unsaved editor buffers are what the agent
// reads, including a buffer for a file not yet on disk.
func TestReadFile_E9_OverlayWins(t *testing.T) {
	h := newHarness(t)
	h.ws.overlay["src/main.go"] = "package main // unsaved\n"
	h.ws.overlay["src/new.go"] = "package fresh\n"
	wantContains(t, wantOK(t, h.call(t, "read_file", `{"path":"src/main.go"}`)), "// unsaved")
	wantContains(t, wantOK(t, h.call(t, "read_file", `{"path":"./src/new.go"}`)), "package fresh")
}

// TestReadFile_B1_FIFODoesNotBlock: a FIFO is refused before anything
// opens it; the fake workspace would block forever on it.
func TestReadFile_B1_FIFODoesNotBlock(t *testing.T) {
	h := newHarness(t)
	mkfifo(t, filepath.Join(h.root, "fifo"))
	te := wantErr(t, h.call(t, "read_file", `{"path":"fifo"}`), tools.CodeInvalidArgs, "path")
	wantContains(t, te.Reason, "not a regular file")
	wantOK(t, h.call(t, "search", `{"pattern":"x"}`)) // the walk skips it too
	if slices.Contains(h.ws.reads, "fifo") {
		t.Error("the workspace was asked to read the FIFO")
	}
}

func TestListDir_B1(t *testing.T) {
	h := newHarness(t)
	for i := range 600 {
		h.write(t, fmt.Sprintf("many/f%03d.txt", i), "")
	}
	h.write(t, "docs/b.md", "")
	h.write(t, "docs/A.md", "")
	h.write(t, "docs/sub/x", "")
	h.write(t, "docs/bad\nname", "")
	if err := os.MkdirAll(filepath.Join(h.root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := wantOK(t, h.call(t, "list_dir", `{"path":"docs"}`)); got != "A.md\nb.md\n\"bad\\nname\"\nsub/" {
		t.Errorf("list_dir docs = %q", got)
	}
	got := wantOK(t, h.call(t, "list_dir", `{"path":"many"}`))
	if n := strings.Count(got, ".txt\n"); n != 500 {
		t.Errorf("%d entries shown; want 500", n)
	}
	wantContains(t, got, "f499.txt\n(500 of 600 entries shown")
	wantContains(t, wantOK(t, h.call(t, "list_dir", `{"path":"."}`)), ".git/", "README.md", "src/")
	if got := wantOK(t, h.call(t, "list_dir", `{"path":"empty"}`)); got != "(empty directory)" {
		t.Errorf("empty dir = %q", got)
	}
	wantErr(t, h.call(t, "list_dir", `{"path":"nope"}`), tools.CodeNotFound, "path")
	te := wantErr(t, h.call(t, "list_dir", `{"path":"README.md"}`), tools.CodeInvalidArgs, "path")
	wantContains(t, te.Recovery, "read_file")
}
