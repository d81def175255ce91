package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkResolvePath measures path decisions per second on one core over
// a mix of inside, outside, symlinked and malformed paths (issue 3 target:
// at least 200,000/s).
//
//	go test -run '^$' -bench ResolvePath -cpu 1 ./sandbox/
func BenchmarkResolvePath(b *testing.B) {
	base, _ := filepath.EvalSymlinks(b.TempDir())
	root := filepath.Join(base, "project")
	for _, d := range []string{"src/pkg", "docs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "src/pkg/a.go"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink("src/pkg", filepath.Join(root, "link")); err != nil {
		b.Fatal(err)
	}
	corpus := []string{"src/pkg/a.go", "../outside/secret.txt", "link/a.go", "docs/new.md",
		root + "/src/pkg/a.go", "/etc/passwd", "src/../../x", "a\x00b", "~/.ssh/id_rsa"}
	n := 0
	for b.Loop() {
		_, _ = ResolvePath(root, corpus[n%len(corpus)])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "decisions/s")
}
