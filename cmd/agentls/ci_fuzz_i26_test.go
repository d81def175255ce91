package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ciFuzzLine is one "fuzz NAME ./pkg/" line of .ci/run's fuzz section.
var ciFuzzLine = regexp.MustCompile(`(?m)^fuzz (Fuzz\w+) (\./\S*)$`)

// TestCIFuzz_Issue26_EveryTargetExists checks that every fuzz target
// .ci/run names is declared in a _test.go file of the package it names
// (issue 26 item 9: targets that moved out of their package were "fuzzed"
// by a go test that said "no fuzz tests to fuzz" and passed).
func TestCIFuzz_Issue26_EveryTargetExists(t *testing.T) {
	root := filepath.Join("..", "..")
	script, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	lines := ciFuzzLine.FindAllStringSubmatch(string(script), -1)
	if len(lines) < 10 {
		t.Fatalf(".ci/run names %d fuzz targets; want the fuzz section's list", len(lines))
	}
	for _, l := range lines {
		if !declaresTestFunc(t, filepath.Join(root, l[2]), l[1]) {
			t.Errorf(".ci/run: fuzz %s %s: no such fuzz target in that package", l[1], l[2])
		}
	}
}

func declaresTestFunc(t *testing.T, dir, name string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
				return true
			}
		}
	}
	return false
}

// TestCIFuzz_Issue26_MissingTargetFails runs .ci/run's fuzz function on a
// target that does not exist: it must fail, not pass without fuzzing.
func TestCIFuzz_Issue26_MissingTargetFails(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a package's tests")
	}
	script, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?ms)^fuzz\(\) \{\n.*?^\}\n`).Find(script)
	if fn == nil {
		t.Fatal(".ci/run has no fuzz() function")
	}
	cmd := exec.Command("bash", "-c", string(fn)+"\nfuzz FuzzNoSuchTarget_I26 ./sandbox/stage/")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "FUZZTIME=1x")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("fuzz of a missing target passed:\n%s", out)
	}
	if !strings.Contains(string(out), "FuzzNoSuchTarget_I26") {
		t.Errorf("the failure does not name the missing target:\n%s", out)
	}
}

// TestCIFuzz_Issue26_EveryTargetListed checks the other direction: every
// fuzz target in the module is fuzzed by .ci/run under its package.
func TestCIFuzz_Issue26_EveryTargetListed(t *testing.T) {
	root := filepath.Join("..", "..")
	script, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, l := range ciFuzzLine.FindAllStringSubmatch(string(script), -1) {
		listed[l[1]+" "+filepath.Clean(l[2])] = true
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Fuzz") {
				continue
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			if !listed[fd.Name.Name+" "+rel] {
				t.Errorf("%s in ./%s is not fuzzed by .ci/run", fd.Name.Name, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
