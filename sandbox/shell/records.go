package shell

import (
	"path"
	"strings"
)

// What the command line did earlier that changes what a later path means:
// files downloaded, scripts written, links created.

// throughLinks checks the target of a link the command created earlier
// when pi leads to or through it.
func (a *analyzer) throughLinks(pi pathInfo, acc access, cmd string) {
	key := pathKey(pi)
	if key == "" || a.linkDepth > 0 {
		return // a link to a link is not followed further
	}
	for _, l := range a.links {
		if key == l.key || strings.HasPrefix(key, l.key+"/") {
			a.linkDepth++
			a.access(field{s: l.target + key[len(l.key):]}, acc, cmd)
			a.linkDepth--
		}
	}
}

// recordLink remembers that link now leads to target.
func (a *analyzer) recordLink(link, target field, symbolic bool) {
	t := target.s
	if a.probing > 0 || t == link.s {
		return
	}
	if symbolic && !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, mHome) {
		t = path.Dir(link.s) + "/" + t
	}
	for _, cwd := range a.st.cwd {
		if k := pathKey(a.classify(link, cwd)); k != "" && len(a.links) < 16 {
			a.links = append(a.links, linkRec{key: k, target: t})
		}
	}
}

// recordScript remembers the text a command wrote to f.
func (a *analyzer) recordScript(f field, text string) {
	if a.probing > 0 {
		return
	}
	for _, cwd := range a.st.cwd {
		if k := pathKey(a.classify(f, cwd)); k != "" {
			if a.scripts == nil {
				a.scripts = map[string]string{}
			}
			a.scripts[k] += text
		}
	}
}

// pathKey names the place pi leads to, or "" when it is not known.
func pathKey(pi pathInfo) string {
	switch pi.kind {
	case pkInside:
		return "R" + pi.rel
	case pkOutside:
		if !pi.partial && !pi.link {
			return "A" + pi.abs
		}
	}
	return ""
}

// recordDownload remembers a file a network command writes, so that
// running it later in the same command line is denied.
func (a *analyzer) recordDownload(f field) {
	if a.probing > 0 {
		return
	}
	for _, cwd := range a.st.cwd {
		if k := pathKey(a.classify(f, cwd)); k != "" && len(a.downloads) < 64 {
			a.downloads = append(a.downloads, k)
		}
	}
}

func (a *analyzer) downloaded(pi pathInfo) bool {
	k := pathKey(pi)
	for _, d := range a.downloads {
		if d == k && k != "" {
			return true
		}
	}
	return false
}

// taint remembers that f now holds secret data (a copy of a key, the
// output of cat .env), so that sending it later is exfiltration.
func (a *analyzer) taint(f field) {
	if a.probing > 0 {
		return
	}
	for _, cwd := range a.st.cwd {
		if k := pathKey(a.classify(f, cwd)); k != "" && len(a.tainted) < 64 {
			a.tainted = append(a.tainted, k)
		}
	}
}

// secretAt reports a secret file, or one the command filled with secrets.
func (a *analyzer) secretAt(pi pathInfo) bool {
	if isSecret(pi) {
		return true
	}
	if k := pathKey(pi); k != "" {
		for _, t := range a.tainted {
			if t == k {
				return true
			}
		}
	}
	return false
}
