package agent_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

// TestMode_I16_OfferWithholdsUnusableTools: Offer leaves out exactly the
// tools the run's conditions rule out (issue 16) and says why for each;
// with every condition met it offers what Tools(true) does, and the read
// modes are never affected.
func TestMode_I16_OfferWithholdsUnusableTools(t *testing.T) {
	all := agent.Conditions{Hosts: true, Answers: true, SQLite: true}
	if got, withheld := agent.ModeExecute.Offer(all); !slices.Equal(got, agent.ModeExecute.Tools(true)) || len(withheld) != 0 {
		t.Errorf("all conditions: offered %q, withheld %v", got, withheld)
	}
	cases := []struct {
		c    agent.Conditions
		gone map[string]string // tool → part of why
	}{
		{agent.Conditions{Answers: true, SQLite: true}, map[string]string{"http_fetch": "allows no host"}},
		{agent.Conditions{Hosts: true, SQLite: true}, map[string]string{"human_confirm": "nobody can answer"}},
		{agent.Conditions{Hosts: true, Answers: true}, map[string]string{"sql_query": "no SQLite file"}},
		{agent.Conditions{}, map[string]string{"http_fetch": "allows no host", "human_confirm": "nobody can answer", "sql_query": "no SQLite file"}},
	}
	for _, tc := range cases {
		got, withheld := agent.ModeExecute.Offer(tc.c)
		if !slices.Equal(slices.Sorted(maps.Keys(withheld)), slices.Sorted(maps.Keys(tc.gone))) {
			t.Errorf("%+v: withheld %v, want %v", tc.c, withheld, tc.gone)
		}
		for name, why := range tc.gone {
			if slices.Contains(got, name) || !strings.Contains(withheld[name], why) {
				t.Errorf("%+v: %s offered or why %q lacks %q", tc.c, name, withheld[name], why)
			}
		}
		if want := len(agent.ModeExecute.Tools(true)) - len(tc.gone); len(got) != want {
			t.Errorf("%+v: offered %d tools %q, want %d", tc.c, len(got), got, want)
		}
	}
	for _, m := range []agent.Mode{agent.ModePlan, agent.ModeReview} {
		if got, withheld := m.Offer(agent.Conditions{}); !slices.Equal(got, m.Tools(false)) || withheld != nil {
			t.Errorf("%s: offered %q, withheld %v", m, got, withheld)
		}
	}
	if agent.ModePlan.Offers("sql_query") || !agent.ModeExecute.Offers("sql_query") {
		t.Error("Offers: only execute can offer sql_query")
	}
}
