package builtin

import (
	"fmt"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// pathAccess is what a tool does with its path argument.
type pathAccess int

const (
	accessList  pathAccess = iota // names only: list_dir, report_finding
	accessRead                    // content: read_file, search
	accessWrite                   // write_file, edit_file
)

// checkPath is the static policy step of a tool whose one path argument
// is field, with the value p: resolve it inside the workspace (T4), refuse
// writes into .git and agentls' own files, mark other control files
// (E15), ask before reading a secret-looking file (as the shell analyser
// does for cat .env), and name the normalized path as the subject.
func checkPath(env *tools.Env, field, p string, access pathAccess) *tools.Verdict {
	rel, refusal := resolveArg(env, field, p)
	if refusal != nil {
		return refusal.Verdict()
	}
	switch access {
	case accessWrite:
		if f := writeRefusal(rel); f != nil {
			f.Field, f.Subject = field, rel
			return f.Verdict()
		}
		v := &tools.Verdict{Decision: tools.Allow, Rule: "path.inside_root", Subject: rel, Preview: "write " + rel}
		if control, _ := sandbox.IsControlPath(rel); control {
			v.Decision, v.Control, v.Rule = tools.Ask, true, "path.control_file"
			v.Reason = "the file makes an editor, a shell or git run code outside the sandbox"
		}
		return v
	case accessRead:
		if sandbox.IsSecretPath(rel) {
			return &tools.Verdict{Decision: tools.Ask, Rule: "path.secret", Subject: rel, Preview: "read " + rel,
				Reason: "the file may hold credentials"}
		}
	}
	return &tools.Verdict{Decision: tools.Allow, Rule: "path.inside_root", Subject: rel, Preview: fmt.Sprintf("read %s", rel)}
}

// writeRefusal refuses a model's write to rel that no approval may allow:
// inside a .git directory (hooks, config), and agentls' own control files
// (E15: .agentls/** in any case). Nil means the write may be proposed.
func writeRefusal(rel string) *tools.ToolError {
	if _, own := sandbox.IsControlPath(rel); own {
		return &tools.ToolError{Code: tools.CodeProtectedPath, Field: "path", Rule: "path.protected",
			Reason:   "agentls' own control files (.agentls/) are never changed by the model",
			Recovery: "leave the policy and configuration to the user; change files of the project only", Subject: rel}
	}
	if inGitDir(rel) {
		return &tools.ToolError{Code: tools.CodeProtectedPath, Field: "path", Rule: "path.git_dir",
			Reason: "writes inside .git/ are not allowed: they can run code", Recovery: "change files of the working tree only", Subject: rel}
	}
	return nil
}
