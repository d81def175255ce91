package exec

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/sandbox/exec/internal/child"
)

// Warm build caches without shared writes (S11). A staged command's Go
// build cache is an overlay: its lower layers are the workspace's own
// cache (what this workspace's commands built before) above the user's
// GOCACHE, both read-only; its upper layer is the command's alone. When
// the command ends, the entries it added move into the workspace's cache
// (never the user's), so the first build of a new workspace reuses what
// the user built, and an entry a hostile project plants stays in that
// project. Go's cache is content-addressed: an entry that exists already
// is kept, deletions (go's trim) are ignored.

// warmCache is one command's cache overlay.
type warmCache struct {
	mount child.Overlay
	run   string // the command's upper and work directories' parent
}

// userGoCache returns the user's Go build cache, or "" when there is
// none to read.
func userGoCache() string {
	d := os.Getenv("GOCACHE")
	if d == "off" {
		return ""
	}
	if d == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		d = filepath.Join(c, "go-build")
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() || !filepath.IsAbs(d) {
		return ""
	}
	return d
}

// warmFor is the cache overlay of a staged command that asked for one
// ([Spec.WarmGoCache]), or nil.
func warmFor(s *Spec, staged bool, gocache, tmp string) *warmCache {
	if !staged || !s.WarmGoCache {
		return nil
	}
	return newWarmCache(gocache, tmp, s.Dir)
}

// newWarmCache prepares the overlay of the workspace cache gocache over
// the user's; nil when there is no user cache, gocache is not a
// persistent workspace cache, or either lies in the workspace ws (then
// beneath the workspace's overlay, where an overlay's layers cannot be).
func newWarmCache(gocache, tmp, ws string) *warmCache {
	user := userGoCache()
	if user == "" || within(gocache, tmp) || within(gocache, user) || within(user, gocache) ||
		within(gocache, ws) || within(user, ws) {
		return nil
	}
	runs := gocache + ".runs"
	if os.MkdirAll(runs, 0o700) != nil {
		return nil
	}
	run, err := os.MkdirTemp(runs, "run-")
	if err != nil {
		return nil
	}
	w := &warmCache{run: run, mount: child.Overlay{Target: gocache, Lowers: []string{gocache, user},
		Upper: filepath.Join(run, "upper"), Work: filepath.Join(run, "work")}}
	for _, d := range []string{w.mount.Upper, w.mount.Work} {
		if os.Mkdir(d, 0o700) != nil {
			removeTree(run)
			return nil
		}
	}
	return w
}

// finish moves the entries the command added into the workspace's cache
// and removes the command's layer.
func (w *warmCache) finish() {
	if w == nil {
		return
	}
	defer removeTree(w.run)
	up, dst := w.mount.Upper, w.mount.Target
	filepath.WalkDir(up, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == up {
			return nil
		}
		rel := strings.TrimPrefix(p, up+"/")
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if err := os.Mkdir(to, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return filepath.SkipDir
			}
		case d.Type().IsRegular():
			unix.Renameat2(unix.AT_FDCWD, p, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
		}
		return nil // whiteouts (go's trim), symlinks and the rest stay behind
	})
}
