package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// pathCheck is the static policy step of a tool whose one path argument is
// field: resolve it inside the workspace (T4), refuse writes into .git, and
// name the normalized path as the subject.
func pathCheck(field string, write bool) func(context.Context, *Env, json.RawMessage) (*Check, error) {
	return func(_ context.Context, env *Env, raw json.RawMessage) (*Check, error) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return denyCheck(CodeInvalidArgs, "args.decode", "arguments are not an object"), nil
		}
		var p string
		if v, ok := m[field]; ok {
			if err := json.Unmarshal(v, &p); err != nil {
				return denyCheck(CodeInvalidArgs, "args.decode", field+" is not a string"), nil
			}
		} else {
			p = "."
		}
		rel, fail := resolveArg(env, field, p)
		if fail != nil {
			var te ToolError
			_ = json.Unmarshal([]byte(fail.Content), &te)
			return &Check{Decision: Deny, Code: fail.Code, Field: field, Rule: "path.outside_root", Reason: te.Reason, Subject: p}, nil
		}
		verb := "read"
		if write {
			verb = "write"
			if inGitDir(rel) {
				return &Check{Decision: Deny, Code: CodeInvalidArgs, Field: field, Rule: "path.git_dir", Reason: "writes inside .git/ can run code", Subject: rel}, nil
			}
		}
		return &Check{Decision: Allow, Rule: "path.inside_root", Subject: rel, Preview: fmt.Sprintf("%s %s", verb, rel)}, nil
	}
}

func denyCheck(code Code, rule, reason string) *Check {
	return &Check{Decision: Deny, Code: code, Rule: rule, Reason: reason}
}

// withChecks gives the built-in file tools their static policy step.
func withChecks(ts []*Tool) []*Tool {
	for _, t := range ts {
		if t.Check != nil {
			continue
		}
		switch t.Name {
		case "read_file", "list_dir", "search", "report_finding":
			t.Check = pathCheck("path", false)
		case "edit_file", "write_file":
			t.Check = pathCheck("path", true)
		}
	}
	return ts
}
