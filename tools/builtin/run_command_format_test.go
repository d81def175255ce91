package builtin

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox/exec"
	"github.com/agentls/agentls/tools"
)

// A11, issue 26 item 7: a command whose sandbox helper was lost while it
// ran is an error to the model, with its output so far and no exit code
// (the editor shows none), never "exit code -1" as if it had finished.
func TestFormatExec_A11_HelperLostIsAnError(t *testing.T) {
	res := formatExec(&exec.Result{ExitCode: -1, HelperLost: true, Stdout: "partial\n[sandbox: the sandbox's helper process was lost]\n"})
	if !res.IsError || res.Code != tools.CodeInternal || res.ExitCode != nil ||
		!strings.HasPrefix(res.Content, "exit code unknown") || !strings.Contains(res.Content, "partial") {
		t.Errorf("helper lost: %+v", res)
	}
	ok := formatExec(&exec.Result{ExitCode: 3, Stdout: "x\n"})
	if ok.IsError || ok.ExitCode == nil || *ok.ExitCode != 3 || !strings.HasPrefix(ok.Content, "exit code 3") {
		t.Errorf("exit 3: %+v", ok)
	}
}
