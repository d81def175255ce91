package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox/sandboxtest"
)

// FuzzResolvePath (T4, S5) checks that ResolvePath never panics, refuses only with a
// *PolicyError that does not leak host paths, and that an accepted path is
// local to the root and, as far as it exists on disk, really inside it. The
// shell analyser's shortcut, ResolveWithin, must agree with it on every
// clean absolute path inside the root.
func FuzzResolvePath(f *testing.F) {
	fx := sandboxtest.NewFixture(f)
	apply(f, fx,
		sl("up", ".."), sl("out", "{{OUTSIDE}}"), sl("a", "b"), sl("b", "a"),
		sl("in", "src"), sl("abs", "{{ROOT}}/src"), sl("dangle", "{{OUTSIDE}}/new.txt"),
		sl("docs/parent", ".."), sl("docs/sub/esc", "../../../outside/secret.txt"),
		sl("here", "."), sl("grow", "grow/grow"),
	)
	for _, c := range loadPolicyCases(f) {
		f.Add(fx.Expand(c.Path))
	}
	for _, s := range []string{
		"", ".", "..", "src/../..", "up/outside/secret.txt", "out/secret.txt", "a/b", "in/main.go",
		"abs/../..", "dangle", "docs/parent/up", "docs/sub/esc", "here/here/up", "grow/x",
		"file://" + fx.Root + "/up/x", "file://" + fx.Outside + "/secret.txt", "file:///%2e%2e",
		fx.Root + "/../outside", "~/x", "$HOME", "src/\u202egnp.go", strings.Repeat("../", 50),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := ResolvePath(fx.Root, p)
		if abs := filepath.Join(fx.Root, p); !strings.HasPrefix(p, "file:") && within(fx.Root, abs) {
			got, gerr := ResolveWithin(fx.Root, abs)
			want, werr := ResolvePath(fx.Root, abs)
			if got != want || ruleOf(gerr) != ruleOf(werr) {
				t.Fatalf("ResolveWithin(%q) = %q, %v; ResolvePath gives %q, %v", abs, got, gerr, want, werr)
			}
		}
		if err != nil {
			pe, ok := errors.AsType[*PolicyError](err)
			if !ok {
				t.Fatalf("ResolvePath(%q) error %T is not a *PolicyError", p, err)
			}
			if pe.Subject != p {
				t.Fatalf("subject %q is not the path as given %q", pe.Subject, p)
			}
			if strings.Contains(pe.Reason, fx.Outside) {
				t.Fatalf("reason leaks the outside path: %q", pe.Reason)
			}
			return
		}
		if rel != "." && !filepath.IsLocal(filepath.FromSlash(rel)) {
			t.Fatalf("ResolvePath(%q) = %q: not local", p, rel)
		}
		if rel != filepath.ToSlash(filepath.Clean(rel)) {
			t.Fatalf("ResolvePath(%q) = %q: not clean", p, rel)
		}
		checkInside(t, fx.Root, rel)
	})
}

func ruleOf(err error) string {
	if pe, ok := errors.AsType[*PolicyError](err); ok {
		return pe.Rule
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// checkInside resolves the longest existing prefix of rel with the OS and
// checks that it is inside root and that rel holds no symlink there.
func checkInside(t *testing.T, root, rel string) {
	t.Helper()
	full := filepath.Join(root, filepath.FromSlash(rel))
	for {
		if _, err := os.Lstat(full); err == nil {
			break
		}
		full = filepath.Dir(full)
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return // e.g. a loop beyond the checked prefix; nothing was followed
	}
	r, err := filepath.Rel(root, real)
	if err != nil || !(r == "." || filepath.IsLocal(r)) {
		t.Fatalf("%q resolves outside the root", rel)
	}
	if real != full {
		t.Fatalf("%q still holds a symlink: %q resolves to %q", rel, full, real)
	}
}

// within reports whether p lies lexically inside base, both clean and
// absolute: the precondition of ResolveWithin in the shell analyser.
func within(base, p string) bool {
	return base == "/" || p == base || len(p) > len(base) && p[len(base)] == '/' && strings.HasPrefix(p, base)
}
