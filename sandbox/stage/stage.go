package stage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Stage is the writable layer of one command's copy-on-write view: Upper
// receives what the command writes, Work is overlayfs's scratch directory
// (same file system). Remove deletes both.
type Stage struct {
	Dir   string // holds Upper and Work
	Upper string
	Work  string
}

// New makes a stage under base (created 0700 if missing), which must not
// overlap root: the upper layer may not lie inside the lower one, nor the
// lower inside it.
func New(base, root string) (*Stage, error) {
	if within(base, root) || within(root, base) {
		return nil, fmt.Errorf("stage: %s overlaps the workspace", base)
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	if err := private(base); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(base, "stage-")
	if err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	s := &Stage{Dir: dir, Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}
	for _, d := range []string{s.Upper, s.Work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("stage: %w", err)
		}
	}
	return s, nil
}

// Remove deletes the stage, also directories the command left without
// write or search permission, and overlayfs's work directory (whose
// entries the kernel creates without permissions).
func (s *Stage) Remove() error {
	if s == nil {
		return nil
	}
	return sandbox.RemoveTree(s.Dir)
}

// Usage returns the bytes the upper layer holds on disk (allocated
// blocks, so sparse files count what they use): the disk budget of a
// staged command (S11). It stops counting past limit.
func Usage(upper string, limit int64) int64 {
	var n int64
	errStop := errors.New("stop")
	filepath.WalkDir(upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n += blocks(p)
		if n > limit {
			return errStop
		}
		return nil
	})
	return n
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	p, dir = filepath.Clean(p), filepath.Clean(dir)
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) || dir == string(filepath.Separator)
}

// private checks that dir is a directory of this user's that nobody else
// can write, and not a symlink: a stage in a shared temp dir
// that another user made first could be read or changed under the merge.
func private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedByMe(fi) {
		return fmt.Errorf("stage: %s is not a private directory of this user's", dir)
	}
	return nil
}
