package proposalcheck

import (
	"context"
	"os"

	"github.com/agentls/agentls/sandbox/exec"
)

// StartUser starts, with x, the checks the user's config file
// ([UserConfigPath] of the environment) gives for a proposal of content
// as path (workspace-relative) in the workspace at root: the detected
// ones and the user's own for this workspace, within the user's budget
// and limit. Nil means no checks. A config file that cannot be read runs
// none, and the Pending's line says why.
func StartUser(ctx context.Context, x *exec.Runner, root, path string, content []byte) *Pending {
	cfg, err := LoadUser(UserConfigPath(os.Getenv))
	if err != nil {
		return finished(&Result{NotRun: err.Error()})
	}
	checks := cfg.Checks(root, []string{path})
	r := &Runner{Exec: x}
	return r.Start(ctx, root, map[string][]byte{path: content}, checks, cfg.Budget(), cfg.Limit())
}

// finished is a Pending that is done with res.
func finished(res *Result) *Pending {
	p := &Pending{done: make(chan struct{}), res: res}
	close(p.done)
	return p
}
