package lspserver

import (
	"fmt"

	"github.com/agentls/agentls/tools"
)

// Closed files (E10, E14). An edit of a file the editor does not hold
// cannot carry a version: sent to an editor that is not one of our
// plugins, it lands on whatever the file holds when the editor applies it,
// and a change on disk between the server's last check and that moment
// lands misplaced. So a closed file is either opened first
// (flowOpenFirst, versioned from then on) or, once the user approved the
// exact change (flowAsk) or the policy did (preapproved), written by the
// server: the disk is compared with what the change was computed against
// right before an atomic replace, so what lands is what was approved or
// nothing. Our own plugins compare the disk themselves before they apply
// an unversioned edit, and keep the editor's flow.

// writesClosed reports whether the server writes this change itself.
func writesClosed(pr *proposal, now fileView) bool {
	return !now.open && !pr.ch.Create && !pr.caps.ownPlugin
}

// writeClosed replaces a closed file's content with the approved change
// when the disk still holds what the change was computed against; a file
// that changed meanwhile is refused as stale and left as it is.
func (p *proposer) writeClosed(pr *proposal) *tools.EditOutcome {
	ch, cur := pr.ch, pr.v.text
	if now := p.view(ch.Path); now.open || !now.holds(cur, true) {
		return staleNow(ch.Path, now, "changed while the change waited for approval")
	}
	if err := p.ws.root.WriteFileAtomic(ch.Path, ch.New, 0o644); err != nil {
		return refuse("the change to %s could not be written (%v)", ch.Path, err)
	}
	out := &tools.EditOutcome{Applied: true, Saved: true}
	for i, h := range pr.hs {
		out.Hunks = append(out.Hunks, tools.HunkOutcome{Index: i, Lines: h.Lines, Applied: true})
	}
	if got, ok := p.ws.disk(ch.Path); !ok || got != string(ch.New) {
		// Another writer replaced the file right after ours: say so
		// rather than claim it holds the change.
		out.Reason = fmt.Sprintf("%s was written as approved, then changed again by another program", ch.Path)
	}
	return out
}
