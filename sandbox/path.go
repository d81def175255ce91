package sandbox

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Rules a path check can fail with, reported in [PolicyError.Rule].
const (
	// RuleOutsideRoot: the path, or a symlink on its way, leads outside
	// the workspace root.
	RuleOutsideRoot = "path.outside_root"
	// RuleInvalidPath: the path is malformed (empty, control characters,
	// a non-file URI, a Windows form) or cannot be checked.
	RuleInvalidPath = "path.invalid"
)

// MaxPathLen is the longest path, in bytes, that [ResolvePath] accepts.
const MaxPathLen = 4096

// maxSymlinks bounds symlink expansions in one resolution, as Linux's
// MAXSYMLINKS does; it also stops loops.
const maxSymlinks = 40

// uriScheme matches a leading URI scheme such as "http://". Compiled on
// first use: the sandbox helper links this package and starts once per
// command (issue 16).
var uriScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`) })

// ResolvePath checks that p names a location inside root and returns it as
// a workspace-relative slash path ("." for the root itself), with every
// symlink on the way resolved. root must be an absolute directory path
// without symlinks.
//
// p may be relative to root, absolute inside root, or a file:// URI (the
// only form that is percent-decoded). Plain paths are taken literally: no
// percent-decoding, no ~ or $VAR expansion, no Unicode normalisation. A
// path the model means differently from the system is refused (T4): one
// starting with ~ or ~user ([RuleHomePath]) and one with ".." after a
// symlink ([RuleSymlinkDotDot]). The path is cleaned lexically (no ".."
// left in it follows a symlink), then resolved component by component against
// the disk: a symlink is followed to its target, which must stay inside
// root; a dangling symlink's target is checked lexically, because a write
// would create it. Components that do not exist are accepted, so the
// result may name a file to be created.
//
// The returned path is the one that was checked; callers must use it, not
// p. Failures are [*PolicyError] values whose Subject is p as given and
// whose Reason never mentions where an outside path leads. Symlinks may be
// swapped after the check: do the file I/O through [Root] as well.
func ResolvePath(root, p string) (string, error) {
	fail := func(rule, reason string) error {
		return &PolicyError{Rule: rule, Subject: p, Reason: reason}
	}
	if !filepath.IsAbs(root) {
		return "", fail(RuleInvalidPath, "the workspace root is not an absolute path")
	}
	root = filepath.Clean(root)
	name, rule, reason := literalPath(p)
	if reason == "" {
		rule, reason = misspelled(root, p, name)
	}
	if reason != "" {
		return "", fail(rule, reason)
	}
	var rel string
	if filepath.IsAbs(name) {
		r, err := filepath.Rel(root, filepath.Clean(name))
		if err != nil || !isLocal(r) {
			return "", fail(RuleOutsideRoot, "the absolute path is outside the workspace")
		}
		rel = r
	} else {
		rel = filepath.Clean(name)
		if !isLocal(rel) {
			return "", fail(RuleOutsideRoot, "the path leaves the workspace")
		}
	}
	return resolveRel(root, rel, p)
}

// ResolveWithin is [ResolvePath] for abs, a clean absolute path already
// known to lie lexically inside root (clean and absolute too): the shell
// analyser's case, which needs no relative-path work. The checks on the
// name and on its symlinks are the same, and so are the results
// (FuzzResolvePath compares them). An abs that is not lexically inside
// root is refused with [RuleOutsideRoot].
func ResolveWithin(root, abs string) (string, error) {
	if _, rule, reason := literalPath(abs); reason != "" {
		return "", &PolicyError{Rule: rule, Subject: abs, Reason: reason}
	}
	if abs != root && (!strings.HasPrefix(abs, root) || root != "/" && abs[len(root)] != '/') {
		return "", &PolicyError{Rule: RuleOutsideRoot, Subject: abs, Reason: "the absolute path is outside the workspace"}
	}
	rel := "."
	if abs != root {
		rel = strings.TrimPrefix(abs[len(root):], "/")
	}
	return resolveRel(root, rel, abs)
}

// resolveRel walks rel (clean, local) under root; subject is the path as
// the caller gave it, for errors.
func resolveRel(root, rel, subject string) (string, error) {
	resolved, rule, reason := walk(root, rel)
	if reason != "" {
		return "", &PolicyError{Rule: rule, Subject: subject, Reason: reason}
	}
	return filepath.ToSlash(resolved), nil
}

// literalPath turns p into a host path without touching the disk: it
// refuses malformed input and decodes file URIs.
func literalPath(p string) (name, rule, reason string) {
	if p == "" {
		return "", RuleInvalidPath, "the path is empty"
	}
	if len(p) > MaxPathLen {
		return "", RuleInvalidPath, "the path is longer than 4096 bytes"
	}
	if r := badChars(p); r != "" {
		return "", RuleInvalidPath, r
	}
	name = p
	switch {
	case len(p) >= 5 && strings.EqualFold(p[:5], "file:"):
		name, rule, reason = fileURIPath(p)
		if reason != "" {
			return "", rule, reason
		}
	case uriScheme().MatchString(p):
		return "", RuleInvalidPath, "only file:// URIs are accepted; use a path relative to the workspace root"
	}
	if strings.ContainsRune(name, '\\') {
		return "", RuleInvalidPath, `backslash is not a path separator here; use "/"`
	}
	if len(name) >= 2 && name[1] == ':' && isASCIILetter(name[0]) {
		return "", RuleInvalidPath, "Windows drive paths are not accepted; use a path relative to the workspace root"
	}
	return name, "", ""
}

// fileURIPath decodes a file URI to an absolute local path.
func fileURIPath(p string) (name, rule, reason string) {
	u, err := url.Parse(p)
	switch {
	case err != nil || !strings.EqualFold(u.Scheme, "file"):
		return "", RuleInvalidPath, "malformed file URI"
	case u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", RuleInvalidPath, "malformed file URI; use file:///absolute/path"
	case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
		return "", RuleOutsideRoot, "the file URI names another host"
	case !strings.HasPrefix(u.Path, "/"):
		return "", RuleInvalidPath, "malformed file URI; use file:///absolute/path"
	}
	if r := badChars(u.Path); r != "" {
		return "", RuleInvalidPath, r
	}
	if len(u.Path) > MaxPathLen {
		return "", RuleInvalidPath, "the path is longer than 4096 bytes"
	}
	return u.Path, "", ""
}

// badChars says why s cannot be a path name, or "" when it can: invalid
// UTF-8, NUL (C APIs truncate at it) and other control characters
// (terminal and prompt spoofing, parser disagreements).
func badChars(s string) string {
	if !utf8.ValidString(s) {
		return "the path is not valid UTF-8"
	}
	for _, r := range s {
		if r == 0 {
			return "the path contains a NUL byte"
		}
		if unicode.IsControl(r) {
			return "the path contains a control character"
		}
	}
	return ""
}

// walk resolves rel (clean, local) under root one component at a time.
// Only real directories are kept on the resolved path, so ".." from a
// symlink target pops to the physical parent, as the kernel does.
func walk(root, rel string) (resolved, rule, reason string) {
	const sep = string(filepath.Separator)
	prefix := root
	if !strings.HasSuffix(prefix, sep) {
		prefix += sep
	}
	// buf is prefix followed by the resolved components; starts[i] is the
	// length of buf before component i (and its separator) was added.
	buf := make([]byte, 0, len(prefix)+len(rel)+16)
	buf = append(buf, prefix...)
	var starts []int
	rest, links := rel, 0
	for rest != "" {
		c, r, _ := strings.Cut(rest, sep)
		rest = r
		switch c {
		case "", ".":
			continue
		case "..":
			if len(starts) == 0 {
				return "", RuleOutsideRoot, "a symlink on the path leads outside the workspace"
			}
			buf, starts = buf[:starts[len(starts)-1]], starts[:len(starts)-1]
			continue
		}
		start := len(buf)
		if len(starts) > 0 {
			buf = append(buf, sep...)
		}
		buf, starts = append(buf, c...), append(starts, start)
		full := string(buf)
		fi, err := os.Lstat(full)
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			continue // not there (yet): nothing below can be a symlink
		case errors.Is(err, syscall.ENAMETOOLONG):
			return "", RuleInvalidPath, "a path component is too long"
		default:
			return "", RuleInvalidPath, "the path cannot be checked"
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		buf, starts = buf[:start], starts[:len(starts)-1] // the link itself is not a directory on the path
		if links++; links > maxSymlinks {
			return "", RuleInvalidPath, "too many levels of symbolic links"
		}
		target, err := os.Readlink(full)
		if err != nil {
			return "", RuleInvalidPath, "the path cannot be checked"
		}
		if filepath.IsAbs(target) {
			r, err := filepath.Rel(root, filepath.Clean(target))
			if err != nil || !isLocal(r) {
				return "", RuleOutsideRoot, "a symlink on the path leads outside the workspace"
			}
			buf, starts, target = buf[:len(prefix)], starts[:0], r
		}
		if rest != "" {
			target += sep + rest
		}
		rest = target
	}
	if len(starts) == 0 {
		return ".", "", ""
	}
	return string(buf[len(prefix):]), "", ""
}

// isLocal reports whether a cleaned relative path stays inside its base.
func isLocal(rel string) bool { return rel == "." || filepath.IsLocal(rel) }

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }
