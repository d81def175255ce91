package exec

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// freshProbeCache points the runners at an empty cache directory for the
// test (tests run one at a time, and no runner probes in the background
// across tests) and returns it.
func freshProbeCache(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agentls")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := probeCacheRoot
	probeCacheRoot = dir
	t.Cleanup(func() { probeCacheRoot = old })
	return dir
}

// needEverything skips where the probe cannot find every layer: nothing
// is ever cached there.
func needEverything(t *testing.T) {
	t.Helper()
	if m := testRunner.Layers().Missing; len(m) > 0 {
		t.Skipf("layers missing here, nothing is cached: %v", m)
	}
}

// probeWith makes a runner with opts, probes, closes it and returns the
// number of probe helpers it started and its layers.
func probeWith(t *testing.T, opts *Options) (int64, LayerReport) {
	t.Helper()
	before := probeLaunches.Load()
	r := New(opts)
	rep := r.Layers()
	r.Close()
	return probeLaunches.Load() - before, rep
}

// cacheEntries returns the entries of the cache file in dir (nil: none).
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	f, err := readProbeCache(dir)
	if err != nil {
		return nil
	}
	return f.Entries
}

// TestProbeCache_I16_SecondRunnerStartsNoHelpers: the first runner probes
// (the helper binary's handshake and the namespace trials) and stores the
// outcome; a second runner of the same binary and boot starts no probe
// helper, finds the same layers, and its commands run — with the
// dedicated helper binary and with the self re-exec alike.
func TestProbeCache_I16_SecondRunnerStartsNoHelpers(t *testing.T) {
	needEverything(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, helper := range []string{testHelper, ""} {
		name := "self"
		if helper != "" {
			name = "binary"
		}
		t.Run(name, func(t *testing.T) {
			dir := freshProbeCache(t)
			n, first := probeWith(t, &Options{Helper: helper})
			if n < 2 {
				t.Fatalf("the first probe started %d helpers", n)
			}
			if len(cacheEntries(t, dir)) != 1 {
				t.Fatalf("not stored: %v", cacheEntries(t, dir))
			}
			n, second := probeWith(t, &Options{Helper: helper})
			if n != 0 {
				t.Errorf("the second probe started %d helpers", n)
			}
			if !slices.Equal(first.Active, second.Active) || len(second.Missing) != 0 {
				t.Errorf("layers: first %v, cached %v %v", first.Active, second.Active, second.Missing)
			}
			r := New(&Options{Helper: helper, Prestart: true})
			defer r.Close()
			mustRun(t, r)
			if (r.sys.bin != nil) != (helper != "") {
				t.Errorf("helper binary in use: %v", r.sys.bin != nil)
			}
			fi, err := os.Stat(filepath.Join(dir, probeCacheName))
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("cache file: %v %v", fi, err)
			}
		})
	}
}

// TestProbeCache_I16_MissingLayerNeverStored: a probe that misses a layer
// (no scratch dir for the mount trial, so no mount namespace) or whose
// helper binary failed the handshake (a fallback to the self re-exec)
// stores nothing; the next runner probes again.
func TestProbeCache_I16_MissingLayerNeverStored(t *testing.T) {
	needEverything(t)
	t.Run("mount namespace missing", func(t *testing.T) {
		dir := freshProbeCache(t)
		t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
		_, rep := probeWith(t, &Options{Helper: testHelper})
		if rep.Has(LayerMountNamespace) {
			t.Fatalf("the mount namespace was found: %v", rep.Active)
		}
		if e := cacheEntries(t, dir); e != nil {
			t.Errorf("stored: %v", e)
		}
		if n, _ := probeWith(t, &Options{Helper: testHelper}); n == 0 {
			t.Error("the next runner did not probe")
		}
	})
	t.Run("handshake failed", func(t *testing.T) {
		dir := freshProbeCache(t)
		notHelper := filepath.Join(t.TempDir(), "true")
		copyFile(t, "/bin/true", notHelper)
		r := New(&Options{Helper: notHelper})
		rep := r.Layers()
		if r.sys.bin != nil || len(rep.Missing) != 0 {
			t.Fatalf("/bin/true as the helper: bin %v, missing %v", r.sys.bin, rep.Missing)
		}
		r.Close()
		if e := cacheEntries(t, dir); e != nil {
			t.Errorf("stored after a failed handshake: %v", e)
		}
	})
}

// copyFile copies src to dst, mode 0755.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// testCacheKey is the key of testHelper's probe.
func testCacheKey(t *testing.T) string {
	t.Helper()
	b, err := openHelperBin(testHelper)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	k, err := probeCacheKey(b)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestProbeCache_I16_BadFileIgnored: a cache file holding the right key
// but garbage around it, too big, a symlink, writable by others, owned by
// another user, or in a directory others can write is ignored, and the
// runner probes (fails open); the same key in a proper file is used
// (the control case).
func TestProbeCache_I16_BadFileIgnored(t *testing.T) {
	needEverything(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	key := testCacheKey(t)
	good, _ := json.Marshal(&probeCacheFile{Format: probeCacheFormat, Entries: []string{key}})
	write := func(t *testing.T, dir string, b []byte, mode os.FileMode) string {
		p := filepath.Join(dir, probeCacheName)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		make func(t *testing.T, dir string)
		used bool
	}{
		{"proper", func(t *testing.T, dir string) { write(t, dir, good, 0o600) }, true},
		{"garbage", func(t *testing.T, dir string) { write(t, dir, []byte("\x00garbage"+key), 0o600) }, false},
		{"trailing data", func(t *testing.T, dir string) { write(t, dir, append(good, "{}"...), 0o600) }, false},
		{"unknown field", func(t *testing.T, dir string) {
			write(t, dir, []byte(`{"format":2,"entries":["`+key+`"],"flags":1}`), 0o600)
		}, false},
		{"other format", func(t *testing.T, dir string) {
			write(t, dir, []byte(`{"format":99,"entries":["`+key+`"]}`), 0o600)
		}, false},
		{"tampered key", func(t *testing.T, dir string) {
			write(t, dir, []byte(`{"format":2,"entries":["`+strings.Repeat("0", len(key))+`"]}`), 0o600)
		}, false},
		{"too many entries", func(t *testing.T, dir string) {
			e := slices.Repeat([]string{key}, probeCacheMax+1)
			b, _ := json.Marshal(&probeCacheFile{Format: probeCacheFormat, Entries: e})
			write(t, dir, b, 0o600)
		}, false},
		{"too big", func(t *testing.T, dir string) {
			write(t, dir, append(good, strings.Repeat(" ", probeCacheBytes)...), 0o600)
		}, false},
		{"world-writable", func(t *testing.T, dir string) { write(t, dir, good, 0o602) }, false},
		{"group-writable", func(t *testing.T, dir string) { write(t, dir, good, 0o620) }, false},
		{"symlink", func(t *testing.T, dir string) {
			real := write(t, t.TempDir(), good, 0o600)
			if err := os.Symlink(real, filepath.Join(dir, probeCacheName)); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"fifo", func(t *testing.T, dir string) {
			if err := mkfifo(filepath.Join(dir, probeCacheName)); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"directory writable by others", func(t *testing.T, dir string) {
			write(t, dir, good, 0o600)
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"directory a symlink", func(t *testing.T, dir string) {
			real := t.TempDir()
			write(t, real, good, 0o600)
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, dir); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"other owner", func(t *testing.T, dir string) {
			p := write(t, dir, good, 0o600)
			if os.Geteuid() != 0 {
				t.Skip("only root can give a file away")
			}
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := freshProbeCache(t)
			c.make(t, dir)
			n, rep := probeWith(t, &Options{Helper: testHelper})
			if used := n == 0; used != c.used {
				t.Errorf("cache used %v (%d probe helpers), want %v", used, n, c.used)
			}
			if len(rep.Missing) != 0 {
				t.Errorf("missing: %v", rep.Missing)
			}
		})
	}
}

// mkfifo makes a named pipe at p (reading it would block: the cache opens
// it non-blocking and refuses it).
func mkfifo(p string) error { return unix.Mkfifo(p, 0o600) }

// TestProbeCache_I16_KeyMismatchIgnored: an entry for the helper binary
// does not apply to another binary (a new inode, as a reinstall makes),
// to the same binary changed in place (its mtime), or to the self
// re-exec; each probes again, and stores its own entry next to the first.
func TestProbeCache_I16_KeyMismatchIgnored(t *testing.T) {
	needEverything(t)
	dir := freshProbeCache(t)
	bin := filepath.Join(t.TempDir(), "agentls-sandbox")
	copyFile(t, testHelper, bin)
	if n, _ := probeWith(t, &Options{Helper: bin}); n == 0 {
		t.Fatal("the first probe started no helper")
	}
	if n, _ := probeWith(t, &Options{Helper: bin}); n != 0 {
		t.Fatalf("the cache is not used at all (%d helpers)", n)
	}
	other := filepath.Join(t.TempDir(), "agentls-sandbox")
	copyFile(t, bin, other)
	if n, _ := probeWith(t, &Options{Helper: other}); n == 0 {
		t.Error("a copy (another inode) used the first binary's entry")
	}
	if n, _ := probeWith(t, &Options{}); n == 0 {
		t.Error("the self re-exec used the helper binary's entry")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	if n, _ := probeWith(t, &Options{Helper: bin}); n < 2 {
		t.Errorf("the binary changed in place: %d helpers (handshake and trials expected)", n)
	}
	if e := cacheEntries(t, dir); len(e) != 4 {
		t.Errorf("entries: %d, want 4 (two binaries, the changed one, self)", len(e))
	}
}

// TestProbeCache_I16_EntriesBounded: the file keeps the newest
// probeCacheMax entries.
func TestProbeCache_I16_EntriesBounded(t *testing.T) {
	dir := freshProbeCache(t)
	var old []string
	for i := range probeCacheMax {
		old = append(old, fmt.Sprintf("%064x", i))
	}
	b, _ := json.Marshal(&probeCacheFile{Format: probeCacheFormat, Entries: old})
	if err := writeProbeCache(dir, b); err != nil {
		t.Fatal(err)
	}
	c := &probeCache{dir: dir, key: strings.Repeat("f", 64)}
	c.store()
	e := cacheEntries(t, dir)
	if len(e) != probeCacheMax || e[0] != c.key || e[probeCacheMax-1] != old[probeCacheMax-2] {
		t.Errorf("entries after a store: %v", e)
	}
}

// TestProbeCache_I16_SetupFailureDropsIt: when a helper started with the
// cached (or just stored) namespaces fails to set up, helperFailed removes
// the cache and the next runner probes again; a result not from the
// cache leaves the file alone.
func TestProbeCache_I16_SetupFailureDropsIt(t *testing.T) {
	needEverything(t)
	dir := freshProbeCache(t)
	r := New(&Options{Helper: testHelper})
	defer r.Close()
	r.Layers() // probes and stores
	r2 := New(&Options{Helper: testHelper})
	defer r2.Close()
	r2.Layers() // from the cache
	if r2.probe().cache == nil || !r2.probe().cache.hit {
		t.Fatal("the second runner's probe is not from the cache")
	}
	(&probeResult{}).helperFailed() // not from the cache: nothing happens
	if cacheEntries(t, dir) == nil {
		t.Fatal("a result not from the cache dropped it")
	}
	r2.probe().helperFailed()
	if _, err := os.Lstat(filepath.Join(dir, probeCacheName)); !os.IsNotExist(err) {
		t.Fatalf("the cache is still there: %v", err)
	}
	if n, _ := probeWith(t, &Options{Helper: testHelper}); n == 0 {
		t.Error("the next runner did not probe")
	}
	r.probe().helperFailed() // the runner that stored it: drops the new file too
	if cacheEntries(t, dir) != nil {
		t.Error("the storing runner's failure left the cache")
	}
}

// TestProbeCache_I16_CommandsCannotWriteIt: a sandboxed command (not
// approved by the user, and approved: both have Landlock) can neither
// write the cache file, nor create, rename or remove entries in its
// directory — at the default place under the user's cache dir (a sibling
// of the per-workspace build caches commands may write) and under
// $XDG_RUNTIME_DIR.
func TestProbeCache_I16_CommandsCannotWriteIt(t *testing.T) {
	needSandboxLayers(t, LayerLandlock)
	old := probeCacheRoot
	probeCacheRoot = ""
	defer func() { probeCacheRoot = old }()
	home := t.TempDir()
	t.Setenv("HOME", home) // os.UserCacheDir: $XDG_CACHE_HOME, else ~/.cache
	t.Setenv("XDG_CACHE_HOME", "")
	for _, runtime := range []string{"", t.TempDir()} {
		t.Setenv("XDG_RUNTIME_DIR", runtime)
		dir, err := probeCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		want := []byte(`{"format":2,"entries":[]}`)
		if err := writeProbeCache(dir, want); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, probeCacheName)
		for _, approved := range []bool{false, true} {
			cmd := fmt.Sprintf(`echo x > %[1]s; echo x >> %[1]s; echo x > %[2]s/new; mv %[1]s %[2]s/moved; rm -f %[1]s; ln -s /etc/passwd %[2]s/link; echo x > sub/written`, p, dir)
			ws := execWorkspace(t)
			if err := os.Mkdir(filepath.Join(ws, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			res := runSandboxed(t, &Spec{Command: cmd, Dir: ws, UserApproved: approved})
			if _, err := os.Stat(filepath.Join(ws, "sub", "written")); err != nil || res.ExitCode != 0 {
				t.Fatalf("the command did not run: %+v", res) // else the test proves nothing
			}
			got, err := os.ReadFile(p)
			if err != nil || string(got) != string(want) {
				t.Errorf("runtime %q approved %v: the cache is now %q %v (stderr %s)", runtime, approved, got, err, res.Stderr)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				// sandbox/: the build caches, under the user's cache dir.
				if e.Name() != probeCacheName && (e.Name() != "sandbox" || runtime != "") {
					t.Errorf("runtime %q approved %v: the command made %s", runtime, approved, e.Name())
				}
			}
		}
	}
}

// BenchmarkProbeCache is BenchmarkProbe with the probe cache empty before
// each runner (cold: every process's first probe, as before issue 16)
// and kept (warm: a process after the first of the boot), with the CPU
// time of the process and its helpers per probe.
func BenchmarkProbeCache(b *testing.B) {
	opts := benchOptions(b)
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "agentls")
			old := probeCacheRoot
			probeCacheRoot = dir
			defer func() { probeCacheRoot = old }()
			var took []time.Duration
			var cpu time.Duration
			for b.Loop() {
				if !warm {
					os.RemoveAll(dir)
				}
				start, cpu0 := time.Now(), execCPUTime(b)
				r := New(opts)
				if len(r.Layers().Active) == 0 {
					b.Skip("no sandbox here")
				}
				took = append(took, time.Since(start))
				r.Close()
				cpu += execCPUTime(b) - cpu0
			}
			reportLatencies(b, took)
			b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(len(took)), "cpu-ms/probe")
		})
	}
}
