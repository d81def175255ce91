package mcp

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMCP_B6_NoShadowing (issue 22 item 4): a project server "Tickets"
// would offer mcp__tickets__echo, the name of the user's server
// "tickets"'s tool; it does not start, whatever the order of the names,
// and every call of the name reaches the user's server. A project server
// clashing with another project server loses to the first by name; the
// user's servers keep their names even when disabled (the user's policy
// may name their tools).
func TestMCP_B6_NoShadowing(t *testing.T) {
	for _, tc := range []struct{ user, project string }{
		{"tickets", "Tickets"}, // "Tickets" sorts first
		{"Tickets", "tickets"},
		{"my-tickets", "my_tickets"},
		{"tickets", "TICKETS!"},
	} {
		t.Run(tc.project, func(t *testing.T) {
			m := Start(t.Context(), &Options{Servers: map[string]ServerConfig{tc.user: self(t), tc.project: self(t)},
				Project: map[string]bool{tc.project: true}, Dir: t.TempDir(), StartTimeout: 20 * time.Second})
			defer m.Close()
			if st := status(m, tc.project); st.State != StateFailed || !strings.Contains(st.Why, "user's server "+tc.user) {
				t.Errorf("project server: %+v", st)
			}
			if st := status(m, tc.user); st.State != StateRunning {
				t.Fatalf("user's server: %+v", st)
			}
			seen := map[string]int{}
			for _, tl := range m.Tools() {
				seen[strings.ToLower(tl.Name)]++
				if seen[strings.ToLower(tl.Name)] > 1 {
					t.Errorf("tool name %s offered twice", tl.Name)
				}
				if !strings.Contains(tl.Description, "MCP server "+tc.user+",") {
					t.Errorf("%s is not the user's server's tool: %s", tl.Name, tl.Description)
				}
			}
			if len(seen) == 0 {
				t.Error("no tools")
			}
		})
	}
	t.Run("disabled user server", func(t *testing.T) {
		off := self(t)
		off.Disabled = true
		m := Start(t.Context(), &Options{Servers: map[string]ServerConfig{"tickets": off, "Tickets": self(t)},
			Project: map[string]bool{"Tickets": true}, Dir: t.TempDir(), StartTimeout: 20 * time.Second})
		defer m.Close()
		if st := status(m, "Tickets"); st.State != StateFailed || len(m.Tools()) != 0 {
			t.Errorf("project server: %+v, %d tools", st, len(m.Tools()))
		}
	})
	t.Run("two project servers", func(t *testing.T) {
		m := Start(t.Context(), &Options{Servers: map[string]ServerConfig{"a-b": self(t), "a_b": self(t)},
			Project: map[string]bool{"a-b": true, "a_b": true}, Dir: t.TempDir(), StartTimeout: 20 * time.Second})
		defer m.Close()
		if st := status(m, "a_b"); st.State != StateFailed || !strings.Contains(st.Why, "the project server a-b") {
			t.Errorf("second project server: %+v", st)
		}
		if st := status(m, "a-b"); st.State != StateRunning {
			t.Errorf("first project server: %+v", st)
		}
	})
}

// TestManager_A18_VerifyBeforeEveryStart: Verify is asked before the
// first start and before the restart after a crash; its error keeps the
// server from running (what it loads changed since it was trusted).
func TestManager_A18_VerifyBeforeEveryStart(t *testing.T) {
	var calls atomic.Int32
	m := Start(t.Context(), &Options{Servers: map[string]ServerConfig{"s": self(t)}, Dir: t.TempDir(), StartTimeout: 20 * time.Second,
		Verify: func(string) error {
			if calls.Add(1) > 1 {
				return errors.New("its sitecustomize.py changed")
			}
			return nil
		}})
	defer m.Close()
	r := gatewayOf(t, m, approveAll{})
	res := callOK(t, r, "mcp__s__crash", `{}`)
	if st := status(m, "s"); st.State != StateRemoved || !strings.Contains(st.Why, "sitecustomize.py changed") || calls.Load() != 2 {
		t.Errorf("after the crash: %+v, verified %d times, result %+v", st, calls.Load(), res)
	}
	m2 := Start(t.Context(), &Options{Servers: map[string]ServerConfig{"s": self(t)}, Dir: t.TempDir(), StartTimeout: 20 * time.Second,
		Verify: func(string) error { return errors.New("changed") }})
	defer m2.Close()
	if st := status(m2, "s"); st.State != StateFailed || len(m2.Tools()) != 0 {
		t.Errorf("refused at start: %+v", st)
	}
}
