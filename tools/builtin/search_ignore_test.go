package builtin

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSearch_B1_Gitignore: search leaves out what .gitignore files say,
// as git does (see search_ignore.go for what is supported).
func TestSearch_B1_Gitignore(t *testing.T) {
	h := newHarness(t)
	h.write(t, ".gitignore", "# comment\n*.log\n!keep.log\nbuild/\n/top.txt\ndoc/**/gen.txt\n\\#hash.txt\nspace.txt  \nout/\n!out/back.txt\n")
	h.write(t, ".git/info/exclude", "excluded.txt\n")
	h.write(t, "sub/.gitignore", "!b.log\nlocal/\n")
	for _, p := range []string{
		"a.log", "keep.log", "sub/b.log", "sub/deeper/c.log", "build/x.txt", "sub/build", "top.txt", "sub/top.txt",
		"doc/gen.txt", "doc/a/b/gen.txt", "doc/gen2.txt", "#hash.txt", "space.txt", "out/back.txt", "excluded.txt",
		"sub/local/l.txt", "local/l.txt",
	} {
		h.write(t, p, "needle\n")
	}
	got := wantOK(t, h.call(t, "search", `{"pattern":"needle"}`))
	want := strings.Join([]string{
		"doc/gen2.txt:1: needle",
		"keep.log:1: needle",    // re-included
		"local/l.txt:1: needle", // local/ is ignored only under sub/
		"sub/b.log:1: needle",   // re-included by the deeper file
		"sub/build:1: needle",   // build/ names directories only
		"sub/top.txt:1: needle", // /top.txt is anchored at the root
	}, "\n")
	if got != want {
		t.Errorf("search =\n%s\nwant\n%s", got, want)
	}
	// A path named in the call is searched, with the rules above it.
	if got := wantOK(t, h.call(t, "search", `{"pattern":"needle","path":"build"}`)); got != "build/x.txt:1: needle" {
		t.Errorf("search in build = %q", got)
	}
	if got := wantOK(t, h.call(t, "search", `{"pattern":"needle","path":"sub/deeper"}`)); got != "no matches" {
		t.Errorf("search in sub/deeper = %q; *.log from the root applies", got)
	}
	if got := wantOK(t, h.call(t, "search", `{"pattern":"needle","path":"a.log"}`)); got != "a.log:1: needle" {
		t.Errorf("search of a.log = %q", got)
	}
}

// TestSearch_B1_Wildmatch: git's glob semantics (cases from git's
// t3070-wildmatch), with WM_PATHNAME as gitignore uses it.
func TestSearch_B1_Wildmatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, text string
		want          bool
	}{
		{"foo", "foo", true}, {"bar", "foo", false}, {"", "", true}, {"???", "foo", true}, {"??", "foo", false},
		{"*", "foo", true}, {"f*", "foo", true}, {"*f", "foo", false}, {"*foo*", "foo", true}, {"*ob*a*r*", "foobar", true},
		{"*ab", "aaaaaaabababab", true}, {`foo\*`, "foo*", true}, {`foo\*bar`, "foobar", false}, {`f\\oo`, `f\oo`, true},
		{"*[al]?", "ball", true}, {"[ten]", "ten", false}, {"**[!te]", "ten", true}, {"**[!ten]", "ten", false},
		{"t[a-g]n", "ten", true}, {"t[!a-g]n", "ten", false}, {"t[!a-g]n", "ton", true}, {"t[^a-g]n", "ton", true},
		{"a[]]b", "a]b", true}, {"a[]-]b", "a-b", true}, {"a[]a-]b", "aab", true}, {"]", "]", true},
		{"foo*bar", "foo/baz/bar", false}, {"foo**bar", "foo/baz/bar", false}, {"foo**bar", "foobazbar", true},
		{"foo/**/bar", "foo/baz/bar", true}, {"foo/**/bar", "foo/bar", true}, {"foo/**/**/bar", "foo/b/a/z/bar", true},
		{"**/foo", "foo", true}, {"**/foo", "XXX/foo", true}, {"**/foo", "bar/baz/foo", true}, {"*/foo", "bar/baz/foo", false},
		{"**/bar*", "foo/bar/baz", false}, {"**/bar/*", "deep/foo/bar/baz", true}, {"**/bar/*", "deep/foo/bar/baz/", false},
		{"**/bar/**", "deep/foo/bar/baz/", true}, {"**/bar/*", "deep/foo/bar", false}, {"foo?bar", "foo/bar", false},
		{"foo[/]bar", "foo/bar", false}, {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true},
		{"**/t[o]", "foo/bar/baz/to", true}, {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true},
		{"[[:digit:][:upper:][:space:]]", "a", false}, {"[[:digit:][:upper:][:space:]]", "A", true}, {"[a-c[:digit:]x-z]", "5", true},
		{"[[:nope:]]", "a", false}, {"[", "[", false}, {"[!", "[!", false}, {"*/*/*", "foo/bba/arr", true},
		{"*/*/*", "foo/bb/aa/rr", false}, {"**/**/**", "foo/bb/aa/rr", true}, {"*X*i", "abcXdefXghi", true},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", false},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true},
		{"*a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*r*s*t*u*v*w*x*y*z*", strings.Repeat("a", 60), false},
	} {
		if got := wildmatch(tc.pattern, tc.text) == wmMatch; got != tc.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tc.pattern, tc.text, got, tc.want)
		}
	}
}

// FuzzSearch_B1_Gitignore: any ignore line and path are decided without a
// panic and quickly; the fast paths (plain names, "*.ext") agree with the
// full matcher; globs of plain characters agree with path.Match.
func FuzzSearch_B1_Gitignore(f *testing.F) {
	for _, s := range [][2]string{{"*.log", "a.log"}, {"/a/**/b", "a/x/y/b"}, {"!keep", "keep"}, {"build/", "build"},
		{"[a-c]?*", "bcd"}, {`\#x `, "#x"}, {"**/x/**", "q/x/y"}, {"*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaa"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, line, p string) {
		start := time.Now()
		r, ok := parseIgnoreLine(line)
		if !ok {
			return
		}
		full := wildmatch(r.pattern, p) == wmMatch
		if (r.exact || r.suffix != "") && (r.anchored || !strings.Contains(p, "/")) && r.matches(p) != full {
			t.Errorf("rule %+v on %q: fast path %v, wildmatch %v", r, p, r.matches(p), full)
		}
		// git matches bytes, path.Match runes: compare on ASCII text.
		if strings.Trim(r.pattern, "ab/*?.") == "" && !strings.Contains(r.pattern, "**") && isASCII(p) {
			if m, err := path.Match(r.pattern, p); err == nil && m != full {
				t.Errorf("wildmatch(%q, %q) = %v, path.Match %v", r.pattern, p, full, m)
			}
		}
		st := ignoreStack{{dir: ".", rules: []ignoreRule{r}}}
		st.ignored(p, true)
		st.ignored(p, false)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%q on %q took %s", line, p, d)
		}
	})
}

// TestSearch_B1_GitignoreAgreesWithGit: on a tree of awkward names and
// rules, search reads exactly the files git lists as untracked and not
// ignored (git ls-files --others --exclude-standard).
func TestSearch_B1_GitignoreAgreesWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed for this test")
	}
	h := newHarness(t)
	os.RemoveAll(filepath.Join(h.root, ".git"))
	os.Remove(filepath.Join(h.root, "README.md"))
	os.RemoveAll(filepath.Join(h.root, "src"))
	if out, err := exec.Command(gitBin, "-C", h.root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	h.write(t, ".gitignore", "*.o\n!important.o\n/root-only\nlogs/\ndocs/**/*.tmp\n**/cache\n[Bb]in/\nfoo?bar\n*.[ch]x\n!/lib/keep.cx\n**/deep/**/x\nsp\\ ace \n")
	h.write(t, "a/.gitignore", "!*.o\nroot-only\n/local\n")
	h.write(t, "a/b/.gitignore", "*\n!*.txt\n!*/\n")
	h.write(t, ".git/info/exclude", "ex*\n")
	for _, p := range []string{"x.o", "important.o", "root-only", "a/root-only", "a/x.o", "a/local", "a/c/local",
		"a/b/n.md", "a/b/n.txt", "a/b/c/m.txt", "a/b/c/m.md", "logs/l.txt", "x/logs/l.txt", "docs/a.tmp", "docs/q/r/a.tmp",
		"docs/a.txt", "cache/c.txt", "q/cache/c.txt", "bin/b", "Bin/b", "tbin/b", "foo-bar", "foo/bar/x", "lib/keep.cx",
		"lib/drop.hx", "lib/x.dx", "deep/x", "a/deep/b/c/x", "a/deep/x", "sp ace ", "sp ace", "ex1.txt", "plain.txt"} {
		h.write(t, p, "needle\n")
	}
	out, err := exec.Command(gitBin, "-C", h.root, "ls-files", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path.Base(l) != ".gitignore" {
			want = append(want, l)
		}
	}
	var got []string
	for _, l := range strings.Split(wantOK(t, h.call(t, "search", `{"pattern":"needle"}`)), "\n") {
		got = append(got, strings.TrimSuffix(l, ":1: needle"))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("search read\n%q\ngit lists\n%q", got, want)
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
