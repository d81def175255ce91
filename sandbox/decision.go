package sandbox

// Decision is what a policy decided about a subject: run it, run it only
// after the user confirms, or refuse it. It is the one allow/ask/deny
// value of agentls; every verdict of the sandbox packages carries one.
// The text forms are those users write in policy files.
type Decision string

// The decisions, from the most permissive to the strictest.
const (
	Allow Decision = "allow" // run without asking
	Ask   Decision = "ask"   // run only after the user confirms
	Deny  Decision = "deny"  // refuse outright
)

// Stricter reports whether d is stricter than e, in the order
// [Allow] < [Ask] < [Deny]. A value that is none of the three ranks as
// [Deny]: an unknown decision never lets anything through.
func (d Decision) Stricter(e Decision) bool { return d.rank() > e.rank() }

func (d Decision) rank() int {
	switch d {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2
}
