package exec

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkStagedTrue_S9 measures what staging adds to a command: `true`
// on a copy-on-write view of the workspace (the overlay mount in the
// command's namespace and its stage's directories) against `true`
// unstaged, alternating, in one run. Target: ≤ 3 ms more (p50).
func BenchmarkStagedTrue_S9(b *testing.B) {
	runner := New(benchOptions(b))
	defer runner.Close()
	if !runner.Layers().Has(LayerStaging) {
		b.Fatalf("no staging here: %s", runner.Layers().Missing[LayerStaging])
	}
	ws := execWorkspace(b)
	var plain, staged []time.Duration
	for b.Loop() {
		for _, stage := range []bool{false, true} {
			spec := &Spec{Command: "true", Dir: ws, UserApproved: true}
			var dir string
			if stage {
				dir = b.TempDir()
				spec.Stage = &Overlay{Upper: filepath.Join(dir, "u"), Work: filepath.Join(dir, "w")}
			}
			start := time.Now()
			if stage { // the caller's share: making and removing the stage
				os.Mkdir(spec.Stage.Upper, 0o755)
				os.Mkdir(spec.Stage.Work, 0o755)
			}
			r, err := runner.Run(b.Context(), spec)
			if err != nil || r.ExitCode != 0 || r.Staged != stage {
				b.Fatal(err, r)
			}
			if stage {
				removeTree(spec.Stage.Upper)
				removeTree(spec.Stage.Work)
				staged = append(staged, time.Since(start))
			} else {
				plain = append(plain, time.Since(start))
			}
		}
	}
	p50 := func(d []time.Duration) float64 { return float64(median(d)) / float64(time.Millisecond) }
	b.ReportMetric(p50(plain), "plain-p50-ms")
	b.ReportMetric(p50(staged), "staged-p50-ms")
	b.ReportMetric(p50(staged)-p50(plain), "staging-ms")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkStagedGoTest_S11 is the first `go test` of a fresh module
// through agentls (staged, a new workspace: an empty workspace build
// cache over the user's warm one) against the same command run directly
// with the user's warm cache, alternating, in one run. Target: ratio ≤ 1.5.
func BenchmarkStagedGoTest_S11(b *testing.B) {
	goBin, err := osexec.LookPath("go")
	if err != nil {
		b.Fatal("no go on PATH")
	}
	runner := New(benchOptions(b))
	defer runner.Close()
	const cmd = "go test -count=1 ./..."
	var direct, through []time.Duration
	for b.Loop() {
		ws := benchModule(b)
		start := time.Now()
		c := osexec.Command(goBin, "test", "-count=1", "./...")
		c.Dir = ws
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("direct: %v\n%s", err, out)
		}
		direct = append(direct, time.Since(start))

		ws = benchModule(b)
		dir := b.TempDir()
		spec := &Spec{Command: cmd, Dir: ws, CacheDir: filepath.Join(dir, "cache"), WarmGoCache: true,
			Stage: &Overlay{Upper: filepath.Join(dir, "u"), Work: filepath.Join(dir, "w")}}
		start = time.Now()
		os.Mkdir(spec.Stage.Upper, 0o755)
		os.Mkdir(spec.Stage.Work, 0o755)
		r, err := runner.Run(b.Context(), spec)
		if err != nil || r.ExitCode != 0 || !r.Staged {
			b.Fatalf("through agentls: %v %+v", err, r)
		}
		through = append(through, time.Since(start))
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(median(direct)), "direct-p50-ms")
	b.ReportMetric(ms(median(through)), "agentls-p50-ms")
	b.ReportMetric(float64(median(through))/float64(median(direct)), "ratio")
}

// benchModule writes a two-file module with a test.
func benchModule(b *testing.B) string {
	ws := b.TempDir()
	for name, text := range map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.22\n",
		"stats.go":      "package m\n\nimport \"strings\"\n\nfunc Upper(s string) string { return strings.ToUpper(s) }\n",
		"stats_test.go": "package m\n\nimport \"testing\"\n\nfunc TestUpper(t *testing.T) {\n\tif Upper(\"a\") != \"A\" {\n\t\tt.Fatal()\n\t}\n}\n",
	} {
		os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644)
	}
	return ws
}
