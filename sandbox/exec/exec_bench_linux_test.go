package exec

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkExecTrue measures the overhead of one call through the whole
// sandbox (helper start in new namespaces, Landlock, seccomp, rlimits,
// the pids cgroup as root, bash) with `true`. Target: ≤ 10 ms. min-ms is
// the fastest call, p50-ms the median, and cpu-ms/op the CPU time of the
// server, helper and shell together per call: on a busy machine they say
// more than the mean.
func BenchmarkExecTrue(b *testing.B) {
	runner := New(benchOptions(b))
	defer runner.Close()
	if len(runner.Layers().Active) == 0 {
		b.Skip("no sandbox here")
	}
	ws := execWorkspace(b)
	var took []time.Duration
	cpu0 := execCPUTime(b)
	for b.Loop() {
		start := time.Now()
		r, err := runner.Run(b.Context(), &Spec{Command: "true", Dir: ws})
		if err != nil || r.ExitCode != 0 {
			b.Fatal(err, r)
		}
		took = append(took, time.Since(start))
	}
	b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(time.Millisecond), "ms/op")
	reportLatencies(b, took)
	// The zygote reaps the commands' inits: their CPU time reaches this
	// process when the zygote is reaped, at Close.
	runner.Close()
	b.ReportMetric(float64(execCPUTime(b)-cpu0)/float64(b.N)/float64(time.Millisecond), "cpu-ms/op")
}

// benchOptions are the options of the benchmarks' runners: the helper
// binary built by TestMain, or the one AGENTLS_BENCH_HELPER names ("self":
// the re-executed test binary; the path of an agentls binary: the server
// re-executing itself, as before issue 16).
func benchOptions(b *testing.B) *Options {
	switch h := os.Getenv("AGENTLS_BENCH_HELPER"); h {
	case "":
		return &Options{Helper: testHelper}
	case "self":
		return &Options{}
	default:
		r := New(&Options{Helper: h})
		defer r.Close()
		if r.Layers(); r.sys.bin == nil {
			b.Fatalf("AGENTLS_BENCH_HELPER=%s is not usable as the helper", h)
		}
		return &Options{Helper: h}
	}
}

// reportLatencies reports the fastest and the median call.
func reportLatencies(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(took[0]), "min-ms")
	b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
}

// execCPUTime is the CPU time of this process and its reaped descendants.
func execCPUTime(b *testing.B) time.Duration {
	var t time.Duration
	for _, who := range []int{unix.RUSAGE_SELF, unix.RUSAGE_CHILDREN} {
		var ru unix.Rusage
		if err := unix.Getrusage(who, &ru); err != nil {
			b.Fatal(err)
		}
		t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return t
}

// BenchmarkExecHugeOutput runs a command that prints 1 GiB and reports
// how much the test process's peak RSS grew. Target: ≤ 16 MiB.
func BenchmarkExecHugeOutput(b *testing.B) {
	if len(testRunner.Layers().Active) == 0 {
		b.Skip("no sandbox here")
	}
	ws := execWorkspace(b)
	var worst int64
	for b.Loop() {
		// Reset VmHWM to the current RSS (proc(5), clear_refs "5").
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Skipf("cannot reset the peak RSS: %v", err)
		}
		before := procStatusKB(b, "VmRSS")
		r, err := testRunner.Run(b.Context(), &Spec{Command: `head -c 1073741824 /dev/zero | tr '\0' a`, Dir: ws,
			Timeout: 10 * time.Minute})
		if err != nil || r.StdoutBytes != 1<<30 || len(r.Stdout) > StdoutCap+100 {
			b.Fatalf("err %v, %d bytes counted, %d kept, stderr %q", err, r.StdoutBytes, len(r.Stdout), r.Stderr)
		}
		worst = max(worst, procStatusKB(b, "VmHWM")-before)
	}
	b.ReportMetric(float64(worst)/1024, "peak-RSS-growth-MiB")
	b.SetBytes(1 << 30)
}

// procStatusKB reads a kB field of /proc/self/status.
func procStatusKB(b *testing.B, field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// BenchmarkProbe measures a runner's probe (the helper starts that find
// out which layers this kernel allows; with the helper binary, its
// handshake too). With Prestart it runs in the background, off the
// initialize reply and the first model request (issue 16); the first
// command waits for what is left of it.
func BenchmarkProbe(b *testing.B) {
	opts := benchOptions(b)
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		r := New(opts)
		if len(r.Layers().Active) == 0 {
			b.Skip("no sandbox here")
		}
		took = append(took, time.Since(start))
		r.Close()
	}
	reportLatencies(b, took)
}
