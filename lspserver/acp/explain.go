package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/tools"
)

// Rejecting with a reason (issue 28). A permission request carries no
// text back, so a hunk's question offers a third answer, "Skip, and tell
// the agent why": the hunk is rejected, the rest of that change is not
// asked, nothing else is asked for the rest of the prompt (every
// question there is declined at once, telling the model to end its turn),
// and the user's next prompt in the session reaches the model as the
// reason for that rejection.

const optRejectExplain = "reject_explain"

// explainOption is the third answer of a hunk's question.
var explainOption = sdk.PermissionOption{OptionId: optRejectExplain, Name: "Skip, and tell the agent why (in your next message)",
	Kind: sdk.PermissionOptionKindRejectOnce}

// waitingWord is what the model reads for a rejected hunk whose reason
// comes with the user's next message.
const waitingWord = "the user will say why in their next message"

// explain records that the user stopped at what to say why; the first
// one counts.
func (p *progress) explain(what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.explaining == "" {
		p.explaining = what
	}
}

// explainingAt is what the user stopped at to say why, "" when nothing.
func (p *progress) explainingAt() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.explaining
}

// declinedForReason is the answer to every question after the user
// stopped to explain: not asked, and the model told to end its turn.
func declinedForReason(what string) string {
	return fmt.Sprintf("not asked: the user rejected %s and will say why in their next message; end your turn now, without further tool calls", what)
}

// explainedChange is the outcome of a change whose hunk i the user
// rejected to explain: the hunks before i as answered, i and the rest not
// applied, each told why.
func explainedHunks(out *tools.EditOutcome, from int) {
	for j := range out.Hunks {
		if j == from {
			out.Hunks[j].UserReason = waitingWord
		} else if j > from {
			out.Hunks[j].UserReason = "not asked: the user stopped at an earlier hunk to say why"
		}
	}
}

// hunkName names hunk i of a change for the model and the user.
func hunkName(ch *tools.FileChange, hs []tools.Hunk, i int) string {
	return fmt.Sprintf("hunk %d (lines %s) of %s", i+1, hs[i].Lines, ch.Path)
}

// reasonPrompt is the instruction of the prompt after one whose hunk
// the user rejected to explain: it says what the words are about.
func (s *acpSession) reasonPrompt(instruction string) string {
	s.mu.Lock()
	what := s.pendingWhy
	s.pendingWhy = ""
	s.mu.Unlock()
	if what == "" || strings.TrimSpace(instruction) == "" {
		return instruction
	}
	return "Why I rejected " + what + ": " + instruction
}

// keepReason remembers, at the end of a prompt, what the user stopped
// at, for the next prompt.
func (s *acpSession) keepReason(p *progress) {
	if what := p.explainingAt(); what != "" {
		s.mu.Lock()
		s.pendingWhy = sandbox.Visible(what)
		s.mu.Unlock()
	}
}
