package stage

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// Rules are what [Set.Classify] needs beyond the change set.
type Rules struct {
	// Held are workspace-relative slash paths (files or directories)
	// that something on the host runs or obeys: the targets of the
	// repository's git configuration (core.hooksPath, include.path, …)
	// and the files a trusted hook or MCP server runs. A change at or
	// beneath one is held.
	Held []string
	// UserApproved: the user approved this very command, so git's own
	// data (objects, refs, the index, logs) may land without a second
	// question. Git's configuration and hooks are held all the same.
	UserApproved bool
	// Tracked reports whether a workspace path is tracked by git; nil
	// counts every existing file as tracked.
	Tracked func(rel string) bool
	// MassDelete is the number of tracked files whose deletion by one
	// command is held; 0 means [DefaultMassDelete].
	MassDelete int
}

// DefaultMassDelete is the mass-deletion threshold: a command that
// deletes this many tracked files at once is asked about it. Tests,
// builds and formatters delete none (their outputs are untracked); a
// clean-up of generated files deletes untracked ones; a refactor deletes
// a few. Twenty tracked files gone in one command is a `rm -rf` of a
// source directory, and asking costs one question.
const DefaultMassDelete = 20

// Reasons given for held and refused changes.
const (
	whyOwn       = "agentls' own control files never change by a command"
	whyControl   = "a control file that git, an editor or a shell acts on outside the sandbox"
	whyPython    = "Python runs it at start-up (site-packages .pth, sitecustomize, usercustomize)"
	whyHooks     = "a hook directory or hook configuration (git hooks, husky, pre-commit)"
	whyGitTarget = "the repository's git configuration points here (hooks, includes, worktree), so git obeys or runs it"
	whySymlink   = "a symlink that leads outside the workspace or into a control path"
	whyConflict  = "conflict: the workspace changed this path while the command ran"
)

// hookNames are hook directories and hook configurations at any depth.
var hookNames = []string{".githooks", ".husky", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml", ".lefthook.yml", "lefthook.yml"}

// Classify sets each change's class (S10). It never lowers a class set
// already (a special file stays refused).
func (s *Set) Classify(r *Rules) {
	for _, c := range s.Changes {
		if c.Class == Refuse {
			continue
		}
		c.Class, c.Why = classify(c, r)
		if c.Class == Land && c.Conflict {
			c.Class, c.Why = Hold, whyConflict
		}
	}
	s.pairReplacements()
	s.massDelete(r)
	s.configChange(r)
}

// whyWithConfig is why a change is held beside a change of git's
// configuration.
const whyWithConfig = "the command also changed git's configuration, which decides what git runs: " +
	"its other changes are held with it"

// configChange holds every change when the command changed git's
// configuration (a config file of a git directory, or a file the
// configuration includes): the targets were read from the configuration
// as it was, and the new one may point at files this same command wrote.
func (s *Set) configChange(r *Rules) {
	changed := false
	for _, c := range s.Changes {
		changed = changed || gitConfigPath(c.Path, r)
	}
	if !changed {
		return
	}
	for _, c := range s.Changes {
		if c.Class == Land {
			c.Class, c.Why = Hold, whyWithConfig
		}
	}
}

// gitConfigPath reports a git configuration file: config or
// config.worktree in a .git directory at any depth (modules too), or a
// file the configuration includes (among r.Held).
func gitConfigPath(rel string, r *Rules) bool {
	base := strings.ToLower(path.Base(rel))
	if (base == "config" || base == "config.worktree") && strings.Contains("/"+strings.ToLower(rel), "/.git/") {
		return true
	}
	for _, h := range r.Held {
		if strings.EqualFold(rel, h) && !strings.Contains(h, "/") && strings.HasPrefix(h, ".") {
			return true // an include file at the top, such as .gitconfig
		}
	}
	return false
}

// pairReplacements gives the deletion of a path that the command
// replaced (a directory that became a symlink, say) its replacement's
// class: a held symlink must not leave the directory deleted.
func (s *Set) pairReplacements() {
	adds := map[string]*Change{}
	for _, c := range s.Changes {
		if c.Op == Add {
			adds[c.Path] = c
		}
	}
	for _, c := range s.Changes {
		if a, ok := adds[c.Path]; ok && c.Op == Delete && a.Class > c.Class {
			c.Class, c.Why = a.Class, a.Why
		}
	}
}

// classify decides one change by its path (every component) and, for a
// symlink, by where it leads.
func classify(c *Change, r *Rules) (Class, string) {
	if cl, why := classifyPath(c.Path, r); cl != Land {
		return cl, why
	}
	if c.Type == fs.ModeSymlink && c.Op != Delete && !symlinkSafe(c.Path, c.Target, r) {
		return Hold, whySymlink
	}
	return Land, ""
}

// ClassifyPath decides a workspace path by name alone: refused, held
// with why, or merged.
func classifyPath(rel string, r *Rules) (Class, string) {
	comps := strings.Split(rel, "/")
	for i, comp := range comps {
		n, ok := sandbox.ControlName(comp)
		switch {
		case !ok:
		case n == sandbox.OwnControlPath:
			return Refuse, whyOwn
		case n == ".git" && i == 0 && r.UserApproved && gitData(comps[1:]):
		default:
			return Hold, whyControl
		}
		for _, h := range hookNames {
			if strings.EqualFold(comp, h) {
				return Hold, whyHooks
			}
		}
	}
	base := strings.ToLower(comps[len(comps)-1])
	if strings.HasSuffix(base, ".pth") || base == "sitecustomize.py" || base == "usercustomize.py" {
		return Hold, whyPython
	}
	for _, h := range r.Held {
		if under(strings.ToLower(rel), strings.ToLower(h)) || under(strings.ToLower(h), strings.ToLower(rel)) {
			return Hold, whyGitTarget
		}
	}
	return Land, ""
}

// gitData reports whether the path beneath a top-level .git is git's own
// data, which an approved git command writes (a commit, a fetch): never
// its configuration, hooks, info or modules.
func gitData(rest []string) bool {
	if len(rest) == 0 {
		return false
	}
	switch rest[0] {
	case "objects", "refs", "logs":
		return true
	case "index", "HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "MERGE_MSG", "COMMIT_EDITMSG",
		"packed-refs", "REBASE_HEAD", "CHERRY_PICK_HEAD", "AUTO_MERGE":
		return len(rest) == 1
	}
	return false
}

// symlinkSafe reports whether a symlink at rel with target stays inside
// the workspace and out of control paths, judged lexically (the link is
// read by whoever follows it later, against whatever is there then).
func symlinkSafe(rel, target string, r *Rules) bool {
	if target == "" || path.IsAbs(target) || strings.ContainsAny(target, "\\\x00") {
		return false
	}
	to := path.Join(path.Dir(rel), target)
	if to == ".." || strings.HasPrefix(to, "../") {
		return false
	}
	if to == "." {
		return true
	}
	cl, _ := classifyPath(to, &Rules{Held: r.Held})
	return cl == Land
}

// massDelete holds every deletion when together they remove at least the
// threshold of tracked files.
func (s *Set) massDelete(r *Rules) {
	limit := r.MassDelete
	if limit <= 0 {
		limit = DefaultMassDelete
	}
	n := 0
	for _, c := range s.Changes {
		if c.Op == Delete {
			n += s.tracked(c, r)
		}
	}
	if n < limit {
		return
	}
	why := fmt.Sprintf("the command deletes %d tracked files", n)
	for _, c := range s.Changes {
		if c.Op == Delete && c.Class == Land {
			c.Class, c.Why = Hold, why
		}
	}
}

// tracked counts the tracked files a deletion removes.
func (s *Set) tracked(c *Change, r *Rules) int {
	if r.Tracked == nil {
		return c.Files
	}
	if !c.IsDir() {
		if r.Tracked(c.Path) {
			return 1
		}
		return 0
	}
	n := 0
	walkFiles(s.Root, c.Path, func(rel string) {
		if r.Tracked(rel) {
			n++
		}
	})
	return n
}
