//go:build !unix

package shell

// canSearch reports whether the user may search the directory name.
func canSearch(name string) bool { return true }
