package headless

import (
	"strings"

	"go.lsp.dev/protocol"
)

// checksNote is the line of the checks on the proposal (E22) that the
// server puts in a hunk's annotation description ("… — checks: builds;
// go vet clean"), as " (checks: …)" for the hunk's question; "" when
// there is none.
func checksNote(a protocol.ChangeAnnotation) string {
	if a.Description == nil {
		return ""
	}
	i := strings.Index(*a.Description, " — checks: ")
	if i < 0 {
		return ""
	}
	return " (" + (*a.Description)[i+len(" — "):] + ")"
}
