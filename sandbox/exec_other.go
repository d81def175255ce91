//go:build !linux

package sandbox

import (
	"context"
	"errors"
)

// errNoSandbox: the helper, its namespaces and Landlock are Linux only,
// and commands never run unsandboxed.
var errNoSandbox = errors.New("sandbox: running commands needs Linux")

// MaybeRunHelper does nothing here: there is no helper off Linux.
func MaybeRunHelper() { helperHooked.Store(true) }

// Exec refuses: commands run only in the Linux sandbox.
func Exec(ctx context.Context, spec *ExecSpec) (*ExecResult, error) {
	if _, err := spec.withDefaults(); err != nil {
		return nil, err
	}
	return nil, errNoSandbox
}

// Layers reports every layer missing.
func Layers() LayerReport {
	m := map[string]string{}
	for _, l := range layerOrder {
		m[l] = "the sandbox is implemented for Linux only"
	}
	return LayerReport{Missing: m}
}

// EnablePrestart does nothing here: there is no helper off Linux.
func EnablePrestart() {}

// StopPrestart does nothing here.
func StopPrestart() {}
