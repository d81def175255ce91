package sandbox

import "fmt"

// PolicyError reports that a policy refused a subject (a path, a command, a
// query, a URL). Rule names the rule that decided; Reason is safe to show to
// the model: it never contains host paths outside the workspace.
type PolicyError struct {
	Rule    string // e.g. "path.outside_root"
	Subject string // the subject as given (never a resolved outside path)
	Reason  string
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Rule, e.Subject, e.Reason)
}
