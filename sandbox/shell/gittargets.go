package shell

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// GitTargets returns the workspace paths (relative, slash) that the
// configuration of root's repository and its submodules makes git obey
// or run: core.hooksPath, include.path and includeIf.*.path (followed,
// three levels deep), core.worktree, core.excludesFile,
// core.attributesFile, core.fsmonitor, and the programs of diff, filter,
// gpg and core keys when they name a workspace file. Staged execution
// holds a command's change to any of them (S10), whether the target
// exists yet or not: a hooks directory the command creates runs at the
// user's next commit.
func GitTargets(root string) []string {
	t := &gitTargets{root: path.Clean(filepath.ToSlash(root))}
	for _, r := range findRepo(filepath.ToSlash(root)) {
		t.work = r.work
		if t.work == "" {
			t.work = root
		}
		files := []string{path.Join(r.gitdir, "config"), path.Join(r.gitdir, "config.worktree")}
		files = append(files, submoduleConfigs(t.work, r.gitdir)...)
		for _, f := range files {
			t.file(f, 0)
		}
	}
	return t.out
}

type gitTargets struct {
	root, work string
	out        []string
	seen       int
}

// file reads one configuration file; includes are followed depth levels.
func (t *gitTargets) file(name string, depth int) {
	if t.seen++; t.seen > maxGitFiles || depth > 3 {
		return
	}
	b, err := readCapped(name, maxGitConfig)
	if err != nil {
		return
	}
	gitConfigKeys(string(b), func(key, val string) {
		section, rest, _ := strings.Cut(key, ".")
		switch {
		case section == "include" || section == "includeif":
			if strings.HasSuffix(rest, "path") {
				p := t.add(path.Dir(name), val)
				if p != "" {
					t.file(p, depth+1)
				}
			}
		case key == "core.hookspath", key == "core.worktree", key == "core.excludesfile",
			key == "core.attributesfile", key == "core.fsmonitor":
			t.add(t.work, val)
		case gitProgramKey(key, val):
			for _, w := range strings.Fields(val) {
				t.add(t.work, strings.Trim(w, `"'`))
			}
		}
	})
}

// add records val, relative to dir, when it lies in the workspace, and
// returns its absolute path ("" when it does not).
func (t *gitTargets) add(dir, val string) string {
	val = strings.TrimSpace(val)
	if val == "" || strings.HasPrefix(val, "~") || strings.HasPrefix(val, "-") {
		return ""
	}
	p := val
	if !path.IsAbs(p) {
		p = path.Join(dir, p)
	}
	p = path.Clean(p)
	if p != t.root && !strings.HasPrefix(p, t.root+"/") {
		return p
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, t.root), "/")
	if rel != "" && !slices.Contains(t.out, rel) {
		t.out = append(t.out, rel)
	}
	return p
}
