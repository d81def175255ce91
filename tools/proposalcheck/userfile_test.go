package proposalcheck_test

import (
	"reflect"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/proposalcheck"
)

// E22: proposal_checks is a known key of the user's config file (no
// "unknown key" warning), and a misspelt key inside it is reported.
func TestProposalCheck_E22_UserFileKeysKnown(t *testing.T) {
	data := []byte(`{"proposal_checks": {"budget_seconds": 5, "projects": {"/w": {"commands": [{"name": "t", "command": "go test ./..."}], "no_detected": true}}, "budjet": 1}}`)
	got := tools.UnknownKeys(data, &proposalcheck.UserFile{})
	if want := []string{`unknown key "budjet" in proposal_checks; ignored`}; !reflect.DeepEqual(got, want) {
		t.Errorf("unknown keys %q, want %q", got, want)
	}
}
