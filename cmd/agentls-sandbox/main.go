// Command agentls-sandbox is agentls's sandbox helper: agentls starts it
// for each command, in the command's new namespaces, where it applies
// the sandbox's layers, runs the shell and reports its status (see
// sandbox/exec). It is small on purpose: its imports are sandbox/exec,
// the sandbox root, the standard library and golang.org/x/sys only
// (cmd/agentls/deps_test.go), so a command pays a few MiB of code and
// no package inits of the server.
//
// Install it next to agentls (`go install ./cmd/...` does); without it
// agentls re-executes itself as the helper, with the same layers.
// Started any other way it exits with status 2.
package main

import (
	"fmt"
	"os"

	"github.com/agentls/agentls/sandbox/exec"
)

func main() {
	exec.MaybeRunHelper() // in the helper's role it never returns
	fmt.Fprintln(os.Stderr, "agentls-sandbox: this is agentls's sandbox helper, started by agentls for each command; it does nothing when run by hand")
	os.Exit(2)
}
