package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// floorDir is testdata/bench/floor, relative to this package: a program
// that imports the external packages agentls imports and does nothing;
// maxrssDir the small launcher that measures a program's peak RSS.
const (
	floorDir  = "../../testdata/bench/floor"
	maxrssDir = "../../testdata/bench/maxrss"
)

// BenchmarkFloor_I16 measures what package init alone costs (issue 16):
// the floor program, whose only work is the init of agentls's
// dependencies, and `agentls version`, which adds ours. Each is run once
// per iteration, through testdata/bench/maxrss; floor-MiB and
// version-MiB are the median peak RSS, floor-cpu-ms and version-cpu-ms
// the median CPU.
// Against the replay's target of 24 MiB for server and helper together,
// this is the part no session can avoid.
//
//	go test -run '^$' -bench Floor_I16 -benchtime 20x ./cmd/agentls/
func BenchmarkFloor_I16(b *testing.B) {
	bin := benchBinary(b)
	dir := b.TempDir()
	for _, d := range []string{floorDir, maxrssDir} {
		build := exec.Command("go", "build", "-o", dir, d)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", d, err, out)
		}
	}
	floor, maxrss := filepath.Join(dir, "floor"), filepath.Join(dir, "maxrss")
	var fRSS, fCPU, vRSS, vCPU []float64
	for b.Loop() {
		for _, p := range []struct {
			rss, cpu *[]float64
			argv     []string
		}{{&fRSS, &fCPU, []string{floor}}, {&vRSS, &vCPU, []string{bin, "version"}}} {
			// Through the launcher: started from this large test binary,
			// the program's maxrss would be at least this binary's RSS.
			cmd := exec.Command(maxrss, p.argv...)
			cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "XDG_STATE_HOME="+b.TempDir())
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("%v: %v", p.argv, err)
			}
			var kib, usec float64
			if _, err := fmt.Sscan(string(out), &kib, &usec); err != nil {
				b.Fatalf("maxrss %v printed %q: %v", p.argv, out, err)
			}
			*p.rss = append(*p.rss, kib/1024)
			*p.cpu = append(*p.cpu, usec/1000)
		}
	}
	median := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
	b.ReportMetric(median(fRSS), "floor-MiB")
	b.ReportMetric(median(fCPU), "floor-cpu-ms")
	b.ReportMetric(median(vRSS), "version-MiB")
	b.ReportMetric(median(vCPU), "version-cpu-ms")
	b.ReportMetric(0, "ns/op")
}

// TestFloor_I16_ImportsWhatAgentlsImports: the floor program imports
// exactly the external packages that agentls's own packages import, so
// BenchmarkFloor_I16 keeps measuring the dependencies agentls has.
func TestFloor_I16_ImportsWhatAgentlsImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	list := func(args ...string) []byte {
		out, err := exec.Command("go", append([]string{"list", "-json"}, args...)...).Output()
		if err != nil {
			t.Fatalf("go list %v: %v", args, err)
		}
		return out
	}
	type pkg struct {
		ImportPath string
		Standard   bool
		Imports    []string
	}
	decode := func(data []byte) []pkg {
		var ps []pkg
		d := json.NewDecoder(bytes.NewReader(data))
		for d.More() {
			var p pkg
			if err := d.Decode(&p); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		return ps
	}
	std := map[string]bool{}
	var want []string
	deps := decode(list("-deps", "."))
	for _, p := range deps {
		std[p.ImportPath] = p.Standard
	}
	for _, p := range deps {
		if !strings.HasPrefix(p.ImportPath, "github.com/agentls/agentls/") {
			continue
		}
		for _, imp := range p.Imports {
			if !std[imp] && !strings.HasPrefix(imp, "github.com/agentls/agentls/") && !slices.Contains(want, imp) {
				want = append(want, imp)
			}
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(decode(list(floorDir))[0].Imports))
	if !slices.Equal(got, want) {
		t.Errorf("testdata/bench/floor imports\n%v\nagentls's packages import\n%v", got, want)
	}
}
