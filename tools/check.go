package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// pathCheck is the static policy step of a tool whose one path argument is
// field: resolve it inside the workspace (T4), refuse writes into .git, and
// name the normalized path as the subject.
func pathCheck(field string, write bool) func(context.Context, *Env, json.RawMessage) (*Verdict, error) {
	return func(_ context.Context, env *Env, raw json.RawMessage) (*Verdict, error) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return denyArgs("arguments are not an object"), nil
		}
		var p string
		if v, ok := m[field]; ok {
			if err := json.Unmarshal(v, &p); err != nil {
				return denyArgs(field + " is not a string"), nil
			}
		} else {
			p = "."
		}
		rel, refusal := resolveArg(env, field, p)
		if refusal != nil {
			return denied(refusal), nil
		}
		verb := "read"
		if write {
			verb = "write"
			if inGitDir(rel) {
				return &Verdict{Decision: Deny, Code: CodeInvalidArgs, Field: field, Rule: "path.git_dir", Reason: "writes inside .git/ can run code", Subject: rel}, nil
			}
		}
		return &Verdict{Decision: Allow, Rule: "path.inside_root", Subject: rel, Preview: fmt.Sprintf("%s %s", verb, rel)}, nil
	}
}

// denyArgs is the verdict on arguments a check cannot decode.
func denyArgs(reason string) *Verdict {
	return &Verdict{Decision: Deny, Code: CodeInvalidArgs, Rule: "args.decode", Reason: reason}
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
