//go:build linux && !(amd64 || arm64)

package exec

import "errors"

// seccompSupported: the filter is written for amd64 and arm64 only.
func seccompSupported() error {
	return errors.New("the seccomp filter is written for amd64 and arm64 only")
}

func applySeccomp() error { return seccompSupported() }
