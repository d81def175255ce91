package tools

// Names are checked by hand rather than with package-level regular
// expressions (issue 16): a bounded repetition such as {1,64} compiles into
// one instruction per repetition, and package init runs in every process
// that starts, before the first model request, the sandbox helper's too.

// validToolName reports whether name is 1-64 characters of [a-z0-9_].
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// plainKeyName reports whether name is what an unknown configuration key
// may look like to be named in an error: a short identifier (a typo such as
// "dney"), a letter and up to 23 letters, digits or underscores, not a
// token or other data.
func plainKeyName(name string) bool {
	if len(name) == 0 || len(name) > 24 || !isASCIILetter(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !(isASCIILetter(c) || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
