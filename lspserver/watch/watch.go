// Package watch owns agentls's file watching (DESIGN.md E10): a recursive,
// bounded fsnotify watch over the workspace, plus a few single files
// outside it (the user's policy), that reports which paths changed.
//
// It is the only importer of github.com/fsnotify/fsnotify. It must not read
// file contents or decide what a change means: the server re-reads what it
// cares about (a file under a pending proposal, a policy file) when told a
// path changed. Directories that only churn (.git/objects, node_modules,
// caches) are not watched, and the number of watched directories is
// bounded; a watch that could not cover everything says so ([Watcher.Full]).
package watch

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// DefaultMaxDirs bounds the directories one [Watcher] watches: inotify
// watches are a per-user kernel resource (fs.inotify.max_user_watches).
const DefaultMaxDirs = 4096

// Options configures a [Watcher]. A nil *Options means defaults, which
// report nothing.
type Options struct {
	// OnChange is called with the absolute path of each file or directory
	// that was created, written, removed or renamed. A directory path
	// stands for everything below it (a tree moved in or out). It is called
	// from the watcher's goroutine, one call at a time, and must not block
	// for long.
	OnChange func(path string)
	// OnOverflow is called when events may have been lost (the kernel
	// queue overflowed): anything may have changed.
	OnOverflow func()
	// Files are files outside the root to watch too (the user's policy
	// file): their directories are watched, not recursively, and only
	// events for these names are reported.
	Files []string
	// MaxDirs bounds the watched directories; zero means DefaultMaxDirs.
	MaxDirs int
	// Skip reports whether a directory, as a slash path relative to the
	// root, is left unwatched with everything below it; nil means [Skip].
	Skip func(rel string) bool
	// Logger receives the watcher's logs; nil discards them.
	Logger *slog.Logger
}

// skipNames are directory names never watched, wherever they are: they
// hold dependencies, caches and build output that churn without the user
// editing them.
var skipNames = map[string]bool{
	"node_modules": true, "__pycache__": true, ".venv": true, ".tox": true,
	".mypy_cache": true, ".pytest_cache": true, ".gradle": true, ".next": true,
	".terraform": true, ".cache": true, ".hg": true, ".svn": true,
}

// skipPaths are root-relative directories never watched.
var skipPaths = map[string]bool{
	".git/objects": true, ".git/lfs": true, ".git/modules": true, ".git/logs": true,
	".agentls/results": true,
}

// Skip is the default [Options.Skip]: dependency, cache and VCS object
// directories.
func Skip(rel string) bool {
	return skipNames[path.Base(rel)] || skipPaths[rel]
}

// Watcher watches one workspace. Close stops it.
type Watcher struct {
	root  string
	fw    *fsnotify.Watcher
	opts  Options
	log   *slog.Logger
	files map[string]bool // the extra files, cleaned absolute paths
	done  chan struct{}

	mu   sync.Mutex // guards dirs and full
	dirs map[string]bool
	full bool
}

// New starts watching root (an absolute, symlink-free directory) and
// everything below it, within the bound. Symbolic links are not followed.
func New(root string, o *Options) (*Watcher, error) {
	fw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, err
	}
	w := &Watcher{root: filepath.Clean(root), fw: fw, files: map[string]bool{}, dirs: map[string]bool{}, done: make(chan struct{})}
	if o != nil {
		w.opts = *o
	}
	if w.opts.MaxDirs <= 0 {
		w.opts.MaxDirs = DefaultMaxDirs
	}
	if w.opts.Skip == nil {
		w.opts.Skip = Skip
	}
	w.log = w.opts.Logger
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.addTree(w.root)
	for _, f := range w.opts.Files {
		if f == "" || !filepath.IsAbs(f) {
			continue
		}
		f = filepath.Clean(f)
		w.files[f] = true
		if !w.inRoot(f) {
			if err := fw.Add(filepath.Dir(f)); err != nil {
				w.log.Debug("Cannot watch file", slog.String("path", f), slog.String("err", err.Error()))
			}
		}
	}
	go w.loop()
	return w, nil
}

// Close stops the watcher and waits for its goroutine.
func (w *Watcher) Close() error {
	err := w.fw.Close()
	<-w.done
	return err
}

// Dirs returns how many directories are watched.
func (w *Watcher) Dirs() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.dirs)
}

// Full reports whether some directory was left unwatched because the
// bound was reached or the kernel refused more watches.
func (w *Watcher) Full() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.full
}

func (w *Watcher) inRoot(p string) bool {
	return p == w.root || strings.HasPrefix(p, w.root+string(filepath.Separator))
}

// addTree watches dir and the directories below it, skipping what Skip
// says and stopping at the bound.
func (w *Watcher) addTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // unreadable entries and files: nothing to add
		}
		if rel, _ := filepath.Rel(w.root, p); rel != "." && w.opts.Skip(filepath.ToSlash(rel)) {
			return filepath.SkipDir
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.dirs[p] {
			return nil
		}
		if len(w.dirs) >= w.opts.MaxDirs {
			w.markFull("bound reached")
			return filepath.SkipAll
		}
		if err := w.fw.Add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir // gone meanwhile
			}
			w.markFull(err.Error()) // ENOSPC: the user's inotify watches are used up
			return filepath.SkipAll
		}
		w.dirs[p] = true
		return nil
	})
}

// markFull records that the watch does not cover everything; the caller
// holds mu.
func (w *Watcher) markFull(why string) {
	if !w.full {
		w.log.Warn("File watch incomplete", slog.String("root", w.root), slog.Int("dirs", len(w.dirs)), slog.String("why", why))
	}
	w.full = true
}

func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Warn("File events lost", slog.String("root", w.root))
				if w.opts.OnOverflow != nil {
					w.opts.OnOverflow()
				}
				continue
			}
			w.log.Debug("File watch error", slog.String("err", err.Error()))
		}
	}
}

func (w *Watcher) event(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return // metadata only: contents did not change
	}
	p := filepath.Clean(ev.Name)
	if !w.inRoot(p) {
		if w.files[p] && w.opts.OnChange != nil {
			w.opts.OnChange(p)
		}
		return
	}
	switch {
	case ev.Has(fsnotify.Create):
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			w.addTree(p) // a new or moved-in tree: watch it too
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		w.forget(p)
	}
	if w.opts.OnChange != nil {
		w.opts.OnChange(p)
	}
}

// forget drops the watches of a removed or renamed directory and of those
// below it; inotify drops removed ones itself, renamed ones stay on the
// moved inode under a stale name.
func (w *Watcher) forget(p string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for d := range w.dirs {
		if d == p || strings.HasPrefix(d, p+string(filepath.Separator)) {
			delete(w.dirs, d)
			_ = w.fw.Remove(d) // already gone after a removal
		}
	}
}
