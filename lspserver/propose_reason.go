package lspserver

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/tools"
)

// applyReply is a workspace/applyEdit reply with the answer of our
// plugins' review (issue 28): the reasons the user gave for rejecting
// hunks, or the whole change, and the text of hunks the user edited
// before accepting them. See the package documentation.
type applyReply struct {
	protocol.ApplyWorkspaceEditResult
	Agentls *HunkReply `json:"agentls,omitempty"`
}

// HunkReply is the "agentls" member of a workspace/applyEdit reply.
type HunkReply struct {
	// Reason is why the user rejected the whole change.
	Reason string `json:"reason,omitempty"`
	// Hunks are the answers about single hunks.
	Hunks []HunkAnswer `json:"hunks,omitempty"`
}

// HunkAnswer is the user's answer about hunk Index (0-based, the N of
// its annotation "agentls.N"): why they rejected it, or the text they
// accepted instead of the proposed one.
type HunkAnswer struct {
	Index  int     `json:"index"`
	Reason string  `json:"reason,omitempty"`
	Text   *string `json:"text,omitempty"`
}

// maxUserText bounds what of the user's words and changes goes to the
// model per hunk.
const maxUserText = 4000

// reasonFor is what the user said about hunk i, or about the whole change.
func (r *HunkReply) reasonFor(i int) string {
	if r == nil {
		return ""
	}
	for _, a := range r.Hunks {
		if a.Index == i && strings.TrimSpace(a.Reason) != "" {
			return cutText(strings.TrimSpace(a.Reason))
		}
	}
	return cutText(strings.TrimSpace(r.Reason))
}

// userReason is everything the user said about a rejected change: the
// reason for the whole change, then each hunk's.
func (r *HunkReply) userReason(hs []hunk) string {
	if r == nil {
		return ""
	}
	var parts []string
	if s := strings.TrimSpace(r.Reason); s != "" {
		parts = append(parts, s)
	}
	for i, h := range hs {
		for _, a := range r.Hunks {
			if a.Index == i && strings.TrimSpace(a.Reason) != "" {
				parts = append(parts, fmt.Sprintf("hunk %d (lines %s): %s", i+1, h.Lines, strings.TrimSpace(a.Reason)))
			}
		}
	}
	return cutText(strings.Join(parts, "; "))
}

// edited returns the hunks as the user accepted them (a hunk they edited
// carries their text) and the indexes of the hunks they changed.
func (r *HunkReply) edited(hs []hunk) ([]hunk, map[int]bool) {
	if r == nil {
		return hs, nil
	}
	out := append([]hunk(nil), hs...)
	changed := map[int]bool{}
	for _, a := range r.Hunks {
		if a.Text != nil && a.Index >= 0 && a.Index < len(hs) && *a.Text != hs[a.Index].Repl {
			out[a.Index].Repl = *a.Text
			changed[a.Index] = true
		}
	}
	return out, changed
}

// tellUser adds the user's answers to what verify found landed: the
// reason on each rejected hunk, and on each hunk the user edited the
// diff of their change, said in Reason as "the user changed your
// proposal" (not stale: the user made the difference).
func (r *HunkReply) tellUser(out *tools.EditOutcome, proposed []hunk, changed map[int]bool) {
	if r == nil || out == nil || out.Stale {
		return
	}
	var edits []string
	for i := range out.Hunks {
		h := &out.Hunks[i]
		if h.Index < 0 || h.Index >= len(proposed) {
			continue
		}
		if !h.Applied {
			h.UserReason = r.reasonFor(h.Index)
			continue
		}
		if changed[h.Index] {
			mine := r.textOf(h.Index)
			h.UserChange = cutText(tools.UnifiedDiff("hunk", proposed[h.Index].Repl, mine))
			edits = append(edits, fmt.Sprintf("hunk %d (lines %s)", h.Index+1, h.Lines))
		}
	}
	if len(edits) > 0 {
		out.Reason = joinReason(out.Reason, "the user changed your proposal before accepting it in "+
			strings.Join(edits, ", ")+"; user_change is the diff from your text to theirs, which is what landed")
	}
	if !out.Applied {
		out.UserReason = r.userReason(proposed)
	}
}

func (r *HunkReply) textOf(i int) string {
	for _, a := range r.Hunks {
		if a.Index == i && a.Text != nil {
			return *a.Text
		}
	}
	return ""
}

func cutText(s string) string {
	if len(s) > maxUserText {
		return s[:maxUserText] + "… (cut)"
	}
	return s
}
