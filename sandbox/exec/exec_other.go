//go:build !linux

package exec

import (
	"context"
	"errors"
)

// errNoSandbox: the helper, its namespaces and Landlock are Linux only,
// and commands never run unsandboxed.
var errNoSandbox = errors.New("sandbox: running commands needs Linux")

// runnerSys holds nothing here: there is no helper off Linux.
type runnerSys struct{}

// MaybeRunHelper does nothing here: there is no helper off Linux.
func MaybeRunHelper() { helperHooked.Store(true) }

// Run refuses: commands run only in the Linux sandbox.
func (r *Runner) Run(ctx context.Context, spec *Spec) (*Result, error) {
	if _, err := spec.withDefaults(); err != nil {
		return nil, err
	}
	return nil, errNoSandbox
}

// Layers reports every layer missing.
func (r *Runner) Layers() LayerReport {
	m := map[string]string{}
	for _, l := range layerOrder {
		m[l] = "the sandbox is implemented for Linux only"
	}
	return LayerReport{Missing: m}
}

// startPrestart does nothing here: there is no helper off Linux.
func (r *Runner) startPrestart() {}

// Close does nothing here.
func (r *Runner) Close() {}
