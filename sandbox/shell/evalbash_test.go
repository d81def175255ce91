package shell

import (
	"runtime"
	"sync"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// checkT21Line analyses line in a fresh workspace and, when the analysis
// allows it, runs it with real bash: it must change no file.
func checkT21Line(t testing.TB, bash, line, payload string) (allowed bool) {
	dir := bashWorkspace(t, payload)
	v := (&Policy{Root: dir, Home: dir + "/home"}).Analyze(line)
	if v.Decision != sandbox.Allow {
		return false
	}
	if changed := runBash(t, bash, dir, line); len(changed) > 0 {
		t.Errorf("%q is allowed (%s), but bash changed %q", line, v.Rule, changed)
	}
	return true
}

// TestShellPolicy_T21_RealBash runs every line of the generated corpus
// that the analysis allows with real bash and checks that it changed no
// file: a value bash evaluates again is never data to the analysis.
func TestShellPolicy_T21_RealBash(t *testing.T) {
	bash := lookBash(t)
	if changed := runBash(t, bash, bashWorkspace(t, ""), "x='a[$(touch PWNED)]'; echo $((x))"); len(changed) == 0 {
		t.Fatal("the oracle does not see the file a second evaluation creates")
	}
	corpus := t21Corpus()
	jobs := make(chan [2]string)
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for c := range jobs {
				if checkT21Line(t, bash, c[0], c[1]) {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	for _, c := range corpus {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d lines, %d allowed and run with bash", len(corpus), allowed)
	if allowed < len(corpus)/20 {
		t.Errorf("only %d of %d lines allowed: the oracle checks too little", allowed, len(corpus))
	}
}

// FuzzSecondEval_T21 generates second-order constructs from the fuzzer's
// bytes (source × context × payload × wrapper, see evalgen_test.go); a
// line the analysis allows must change no file when real bash runs it.
func FuzzSecondEval_T21(f *testing.F) {
	bash := lookBash(f)
	for i := range t21Contexts {
		f.Add([]byte{0, byte(i), 0, 0})
		f.Add([]byte{byte(i), byte(i), byte(i), byte(i), byte(i * 7)})
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		line, payload := genT21(b)
		checkT21Line(t, bash, line, payload)
	})
}
