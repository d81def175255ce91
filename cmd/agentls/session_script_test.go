package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentls/agentls/agent/llmtest"
)

// models holds each script's latest fake model (*llmtest.Server), for
// modelreq.
var models sync.Map

// scriptModelRequest prints the messages of request N (from 0) the script's
// latest fake model received, one per line: the role, then the tool calls
// by name or the first line of the content, e.g.
//
//	assistant → read_file
//	tool call_1 package main
//
// "modelreq N tools" prints the names of the tools that request offered.
func scriptModelRequest(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "tools") {
		ts.Fatalf("usage: modelreq N [tools]")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	v, ok := models.Load(ts)
	if !ok {
		ts.Fatalf("modelreq: no fakemodel in this script")
	}
	reqs := v.(*llmtest.Server).Requests()
	if n < 0 || n >= len(reqs) {
		ts.Fatalf("modelreq: request %d of %d", n, len(reqs))
	}
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	ts.Check(json.Unmarshal(reqs[n], &req))
	if len(args) == 2 { // the names of the offered tools, one per line
		for _, t := range req.Tools {
			fmt.Fprintln(ts.Stdout(), t.Function.Name)
		}
		return
	}
	for _, m := range req.Messages {
		line := m.Role
		if m.ToolCallID != "" {
			line += " " + m.ToolCallID
		}
		for _, c := range m.ToolCalls {
			line += " → " + c.Function.Name
		}
		if s, ok := m.Content.(string); ok && len(m.ToolCalls) == 0 {
			s = strings.TrimSpace(s)
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[:i]
			}
			line += " " + s
		}
		fmt.Fprintln(ts.Stdout(), line)
	}
}

// damageSession damages the workspace's only session log: "middle"
// changes one byte of its middle line (still valid JSON), "tail" cuts its
// last line in half.
func damageSession(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || (args[0] != "middle" && args[0] != "tail" && args[0] != "first") {
		ts.Fatalf("usage: damage middle|tail|first")
	}
	logs, _ := filepath.Glob(filepath.Join(ts.Getenv("HOME"), ".local", "state", "agentls", "sessions", "*", "*.jsonl"))
	if len(logs) != 1 {
		ts.Fatalf("damage: %d session logs, want 1", len(logs))
	}
	data, err := os.ReadFile(logs[0])
	ts.Check(err)
	lines := strings.SplitAfter(string(data), "\n")
	switch args[0] {
	case "first": // the session record itself: nothing can be told from garbage
		lines[0] = "garbage that is no record\n"
	case "tail":
		last := lines[len(lines)-2]
		lines[len(lines)-2] = last[:len(last)/2]
		lines = lines[:len(lines)-1]
	default:
		mid := len(lines) / 2
		i := strings.Index(lines[mid], `"k":"`) + len(`"k":"`) + 1
		b := []byte(lines[mid])
		b[i] ^= 0x20 // "msg" → "mSg": still JSON, a different record
		lines[mid] = string(b)
	}
	ts.Check(os.WriteFile(logs[0], []byte(strings.Join(lines, "")), 0o600))
	fmt.Fprintf(ts.Stdout(), "damaged %s (%s)\n", filepath.Base(logs[0]), args[0])
}

// sessionID sets the environment variable NAME to the ID of the
// workspace's only session.
func sessionID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sessionid NAME")
	}
	logs, _ := filepath.Glob(filepath.Join(ts.Getenv("HOME"), ".local", "state", "agentls", "sessions", "*", "*.jsonl"))
	if len(logs) != 1 {
		ts.Fatalf("sessionid: %d session logs, want 1", len(logs))
	}
	ts.Setenv(args[0], strings.TrimSuffix(filepath.Base(logs[0]), ".jsonl"))
}
