package shell

import (
	"os"
	"path"
	"strings"
)

// Globs in path operands. bash expands them against the disk, so inside
// the workspace and the home they are expanded the same way (within a
// budget); elsewhere they are judged by pattern.

// globMatches lists (up to 32) existing files a glob operand matches
// inside the workspace or the home directory, reading at most a bounded
// number of directory entries per command line. Globs elsewhere are judged
// by pattern (see deglobTop).
func (a *analyzer) globMatches(f field, cwd string) []string {
	s := strings.ReplaceAll(f.s, mChild, "x")
	switch {
	case isDynamic(s) || !strings.ContainsAny(s, "*?["):
		return nil
	case strings.HasPrefix(s, mHome+"~/") || s == mHome+"~":
		if a.home == "" {
			return nil
		}
		s = a.home + s[len(mHome)+1:]
	case strings.HasPrefix(s, mHome):
		return nil
	case !strings.HasPrefix(s, "/"):
		if !strings.HasPrefix(cwd, "/") {
			return nil
		}
		s = cwd + "/" + s
	}
	s = path.Clean(s)
	if !(a.root != "" && within(a.root, s)) && !(a.home != "" && within(a.home, s)) {
		return nil
	}
	var out []string
	a.glob("/", strings.Split(s[1:], "/"), &out)
	return out
}

// glob expands the pattern components comps below dir into out.
func (a *analyzer) glob(dir string, comps []string, out *[]string) {
	if len(comps) == 0 {
		if len(*out) < 32 {
			*out = append(*out, dir)
		}
		return
	}
	c := comps[0]
	if !strings.ContainsAny(c, "*?[") {
		a.glob(path.Join(dir, c), comps[1:], out)
		return
	}
	if a.globBudget <= 0 {
		return
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	ents, _ := d.ReadDir(a.globBudget)
	d.Close()
	a.globBudget -= len(ents) + 1
	for _, e := range ents {
		name := e.Name()
		if ok, _ := path.Match(c, name); ok && (name[0] != '.' || c[0] == '.') {
			a.glob(path.Join(dir, name), comps[1:], out)
		}
	}
}

// deglobTop replaces a top-level glob component that can match a system
// directory with that directory, so that /e?c/hosts counts as /etc/hosts.
func deglobTop(s string) string {
	if !strings.HasPrefix(s, "/") {
		return s
	}
	top, rest, _ := strings.Cut(s[1:], "/")
	if !strings.ContainsAny(top, "*?[") {
		return s
	}
	for _, name := range []string{"etc", "dev", "usr", "bin", "sbin", "lib", "lib64", "boot", "sys", "proc",
		"var", "root", "home", "snap", "lib32", "libx32", "System", "Library", "Applications", "private"} {
		if ok, _ := path.Match(top, name); ok {
			return "/" + name + "/" + rest
		}
	}
	return s
}

// dotGlob turns a glob component that could match ".." into "..".
func dotGlob(s string) string {
	parts := strings.Split(s, "/")
	for i, c := range parts {
		if len(c) > 1 && c[0] == '.' && c != ".." && strings.ContainsAny(c, "*?[") {
			if ok, _ := path.Match(c, ".."); ok {
				parts[i] = ".."
			}
		}
	}
	return strings.Join(parts, "/")
}
