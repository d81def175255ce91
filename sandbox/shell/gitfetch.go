package shell

import "strings"

// A read-only git command can still reach a remote: in a partial clone, a
// missing object (git show <id>, log -p, blame, diff) is fetched lazily
// from the promisor remote, and the transport runs what the repository
// configures — an ext:: URL's command, core.sshCommand, the remote's
// uploadpack, a URL rewritten by insteadOf. The keys that make a remote a
// promisor (or enable such a transport) count as programs (S8).

// gitFetchKey reports a configuration key that lets read-only git run a
// transport, and so the programs configured for it.
func gitFetchKey(key, val string) bool {
	section, rest, _ := strings.Cut(key, ".")
	sub, name := "", rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	switch section {
	case "extensions":
		return name == "partialclone"
	case "remote":
		return name == "promisor" || name == "partialclonefilter" ||
			(name == "url" || name == "pushurl") && extURL(val)
	case "protocol":
		return name == "allow" && strings.ToLower(strings.TrimSpace(val)) != "never"
	case "url":
		return (name == "insteadof" || name == "pushinsteadof") && extURL(sub)
	}
	return false
}

// extURL reports an ext:: URL, which makes git run a command.
func extURL(s string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "ext::")
}
