// Package sandboxtest holds the fixtures that the tests of the sandbox
// packages share: the paths fixture of the policy examples (a workspace
// root and a sibling directory outside it that holds a secret) and small
// file helpers that fail the test instead of returning errors.
//
// It is imported only from _test.go files; it must not import any other
// agentls package, so that every sandbox package's tests can use it.
package sandboxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixture is the paths fixture of testdata/policy-examples/README.md: a
// workspace Root ("project") and a sibling Outside directory holding
// secret.txt, both with symlinks resolved.
type Fixture struct {
	Root, Outside string
}

// NewFixture builds a fresh [Fixture] in a temporary directory: src/main.go,
// README.md, .git/config, .git/hooks/ and docs/sub/ inside the root, and
// outside/secret.txt and outside/sub/ beside it.
func NewFixture(t testing.TB) Fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fx := Fixture{Root: filepath.Join(base, "project"), Outside: filepath.Join(base, "outside")}
	for _, d := range []string{"src", ".git/hooks", "docs/sub"} {
		MustMkdir(t, filepath.Join(fx.Root, d))
	}
	MustMkdir(t, filepath.Join(fx.Outside, "sub"))
	MustWrite(t, filepath.Join(fx.Root, "src/main.go"), "package main\n")
	MustWrite(t, filepath.Join(fx.Root, "README.md"), "# project\n")
	MustWrite(t, filepath.Join(fx.Root, ".git/config"), "[core]\n")
	MustWrite(t, filepath.Join(fx.Outside, "secret.txt"), "TOP SECRET\n")
	return fx
}

// Expand replaces the README's placeholders {{ROOT}}, {{OUTSIDE}} and
// {{ROOTNAME}} in s.
func (fx Fixture) Expand(s string) string {
	return strings.NewReplacer("{{ROOT}}", fx.Root, "{{OUTSIDE}}", fx.Outside,
		"{{ROOTNAME}}", filepath.Base(fx.Root)).Replace(s)
}

// MustMkdir creates dir and its parents, or fails the test.
func MustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// MustWrite writes content to the file name, creating its directory, or
// fails the test.
func MustWrite(t testing.TB, name, content string) {
	t.Helper()
	MustMkdir(t, filepath.Dir(name))
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
