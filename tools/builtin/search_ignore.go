package builtin

import (
	"bytes"
	"path"
	"strings"
)

// What search honours of gitignore(5): the .gitignore file of every
// directory it walks and of the directories above the searched path (up to
// the workspace root), and .git/info/exclude at the root, whether or not
// the workspace is a git repository (ripgrep wants one); not the user's
// global excludes file (outside the workspace), nor .ignore files. Inside one file the last
// matching line wins; a deeper file wins over a shallower one. Supported:
// comments, blank lines, "!" negation, a trailing "/" for directories only,
// patterns anchored by a "/" at the start or in the middle (else matched
// against the name at any depth), "*", "?", "[...]" classes (with "!" or
// "^" negation, ranges, [:alpha:]-style names), "**/", "/**" and "/**/",
// backslash escapes, trailing spaces trimmed unless escaped. As in git, a
// file inside an excluded directory cannot be re-included: the directory is
// not entered. A path named in the call is searched even if ignored.

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	pattern  string // without "!", a leading "/" and a trailing "/"
	negate   bool
	dirOnly  bool
	anchored bool // matched against the path below the file's directory, else against the name
	// fast paths for the common shapes, decided once
	exact  bool   // no glob characters: compare
	suffix string // "*" followed by a plain name part: a suffix test
}

// ignoreFile is the rules of one ignore file, for the directory dir
// (workspace-relative, "." for the root).
type ignoreFile struct {
	dir   string
	rules []ignoreRule
}

// parseIgnore reads the lines of a .gitignore file.
func parseIgnore(dir string, content []byte) *ignoreFile {
	f := &ignoreFile{dir: dir}
	for line := range bytes.Lines(content) {
		if r, ok := parseIgnoreLine(string(line)); ok {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

func parseIgnoreLine(s string) (ignoreRule, bool) {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	s = trimTrailingSpaces(s)
	if s == "" || s[0] == '#' {
		return ignoreRule{}, false
	}
	var r ignoreRule
	if s[0] == '!' {
		r.negate, s = true, s[1:]
	}
	if strings.HasSuffix(s, "/") && !strings.HasSuffix(s, `\/`) {
		r.dirOnly, s = true, strings.TrimRight(s, "/")
	}
	if strings.Contains(s, "/") {
		r.anchored, s = true, strings.TrimPrefix(s, "/")
	}
	if s == "" {
		return ignoreRule{}, false
	}
	r.pattern = s
	switch {
	case !strings.ContainsAny(s, `*?[\`):
		r.exact = true
	case s[0] == '*' && !strings.ContainsAny(s[1:], `*?[\/`):
		r.suffix = s[1:]
	}
	return r, true
}

// trimTrailingSpaces drops trailing spaces that are not escaped with a
// backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		t := strings.TrimSuffix(s, " ")
		if strings.HasSuffix(t, `\`) && (len(t)-len(strings.TrimRight(t, `\`)))%2 == 1 {
			return s
		}
		s = t
	}
	return s
}

// match says whether rel, a path below f.dir, is ignored (1), re-included
// (-1) or not named by this file (0).
func (f *ignoreFile) match(rel string, isDir bool) int {
	name := path.Base(rel)
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		subject := name
		if r.anchored {
			subject = rel
		}
		if r.matches(subject) {
			if r.negate {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (r *ignoreRule) matches(s string) bool {
	switch {
	case r.exact:
		return s == r.pattern
	case r.suffix != "":
		return strings.HasSuffix(s, r.suffix) && (!r.anchored || !strings.Contains(s, "/"))
	}
	return wildmatch(r.pattern, s) == wmMatch
}

// ignoreStack is the ignore files that apply to a directory of the walk,
// shallowest first.
type ignoreStack []*ignoreFile

// ignored reports whether the workspace-relative path rel is excluded.
func (st ignoreStack) ignored(rel string, isDir bool) bool {
	for i := len(st) - 1; i >= 0; i-- {
		f := st[i]
		sub := rel
		if f.dir != "." {
			sub = strings.TrimPrefix(rel, f.dir+"/")
		}
		if m := f.match(sub, isDir); m != 0 {
			return m > 0
		}
	}
	return false
}

// with returns the stack with f on top, sharing nothing the caller's
// siblings could see.
func (st ignoreStack) with(f *ignoreFile) ignoreStack {
	if f == nil || len(f.rules) == 0 {
		return st
	}
	return append(st[:len(st):len(st)], f)
}
