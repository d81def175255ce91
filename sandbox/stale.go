package sandbox

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"path"
	"regexp"
	"sync"
	"time"
)

// tempPattern is exactly the name of the temporary files of
// [Root.WriteFileAtomic]: "." + the target's name + ".agentls-" + 12
// characters of [rand.Text] (base32: A-Z, 2-7).
var tempPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\..+\.agentls-[A-Z2-7]{12}$`) })

func tempName(base string) string { return "." + base + ".agentls-" + rand.Text()[:12] }

// ErrWalkLimit is returned by [Root.RemoveStaleTemps] when it stopped after
// its limit of entries.
var ErrWalkLimit = errors.New("stopped after the entry limit")

// RemoveStaleTemps removes the temporary files [Root.WriteFileAtomic]
// leaves when the process is killed between writing and renaming: regular
// files named exactly like them, last modified before before (the start
// of this process, so that a write in progress is never touched). It
// looks at most limit entries (limit <= 0: no limit), skips .git, and
// returns the workspace paths it removed. It stops early when ctx is done.
func (r *Root) RemoveStaleTemps(ctx context.Context, before time.Time, limit int) ([]string, error) {
	var removed []string
	seen := 0
	err := fs.WalkDir(r.r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			return nil // an unreadable directory: skip it
		}
		if seen++; limit > 0 && seen > limit {
			return ErrWalkLimit
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !tempPattern().MatchString(d.Name()) {
			return nil
		}
		fi, err := d.Info()
		if err != nil || !fi.ModTime().Before(before) {
			return nil
		}
		if err := r.r.Remove(p); err == nil {
			removed = append(removed, path.Clean(p))
		}
		return nil
	})
	return removed, err
}
