package sandboxtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// HelperPackage is the sandbox helper binary's package.
const HelperPackage = "github.com/agentls/agentls/cmd/agentls-sandbox"

// HelperName is the helper binary's file name, which agentls looks for
// next to its own executable.
const HelperName = "agentls-sandbox"

// BuildHelper builds cmd/agentls-sandbox into dir and returns its path,
// for the TestMain of packages that run commands (the tests then run
// against the helper that agentls ships) and for tests that build
// agentls. The go command caches the build. flags are extra go build
// flags: build the helper as agentls was built, so that both report the
// same version; next to a test binary it needs "-buildvcs=false" (go test
// does not stamp the VCS revision).
func BuildHelper(dir string, flags ...string) (string, error) {
	bin := filepath.Join(dir, HelperName)
	args := append([]string{"build", "-o", bin}, flags...)
	args = append(args, HelperPackage)
	out, err := exec.Command(GoTool(), args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", HelperPackage, err, out)
	}
	return bin, nil
}

// GoTool returns the go command: the one on PATH, else GOROOT's.
func GoTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// MustBuildHelper is [BuildHelper] into a new temporary directory for
// TestMain, which has no testing.TB: it exits the test binary with status
// 1 when the build fails. The returned function removes the directory.
func MustBuildHelper(flags ...string) (path string, cleanup func()) {
	dir, err := os.MkdirTemp("", "agentls-helper-")
	if err == nil {
		if path, err = BuildHelper(dir, flags...); err == nil {
			return path, func() { os.RemoveAll(dir) }
		}
		os.RemoveAll(dir)
	}
	fmt.Fprintf(os.Stderr, "building the sandbox helper: %v\n", err)
	os.Exit(1)
	return "", nil
}
