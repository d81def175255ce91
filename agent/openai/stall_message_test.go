package openai_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/openai"
)

// E17 (issue 25): the stall message says the default timeout as the
// README and AGENTLS_STALL_TIMEOUT do, "60s", not Go's "1m0s".
func TestStream_E17_StallMessageSaysSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := pipeModel(t, `{"delay_ms":600000}`+"\n"+`{"content":"ok"}`, func(o *openai.Options) { o.StallTimeout = time.Minute })
		req := &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}
		_, err := m.Stream(t.Context(), req, nil)
		if err == nil || !strings.Contains(err.Error(), "stalled: no data for 60s") {
			t.Errorf("err %v, want it to say \"stalled: no data for 60s\"", err)
		}
	})
}
