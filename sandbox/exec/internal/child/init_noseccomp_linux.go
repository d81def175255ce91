//go:build linux && !(amd64 || arm64)

package child

import "errors"

// SeccompSupported: the filter is written for amd64 and arm64 only.
func SeccompSupported() error {
	return errors.New("the seccomp filter is written for amd64 and arm64 only")
}

func applySeccomp() error { return SeccompSupported() }
