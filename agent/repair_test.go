package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentls/agentls/prompts"
	"github.com/agentls/agentls/tools"
)

// TestRun_A7_NormalizesBeforeEveryRequest: the pipeline runs before each
// model request, so what the model sees is always paired.
func TestRun_A7_NormalizesBeforeEveryRequest(t *testing.T) {
	var seen int
	counter := Normalizer{Name: "counter", Priority: 20, Apply: func(m []Message) ([]Message, []Repair) {
		seen++
		return m, nil
	}}
	m := &scripted{resps: []*Response{
		{ToolCalls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{}`}}},
		{ToolCalls: []ToolCall{{ID: "b", Name: "read_file", Arguments: `{}`}}},
		{Content: "done"},
	}}
	out := Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, Task: prompts.TaskData{Instruction: "x"},
		Normalizers: append(DefaultNormalizers(), counter)})
	if out.Status != StatusDone || seen != 3 {
		t.Fatalf("outcome %+v, normalizer ran %d times, want 3", out, seen)
	}
	for i, req := range m.reqs {
		if err := ValidatePairing(req.Messages); err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	}
}

// TestRun_A8_StrictNormalizer: a failing normalizer is an event in
// production and fails the run in strict mode; a custom normalizer's
// repairs belong to the normalizer dimension.
func TestRun_A8_StrictNormalizer(t *testing.T) {
	boom := Normalizer{Name: "boom", Priority: 1, Apply: func([]Message) ([]Message, []Repair) { panic("x") }}
	fix := Normalizer{Name: "trim", Priority: 2, Apply: func(m []Message) ([]Message, []Repair) {
		return m, []Repair{{Kind: "trimmed"}}
	}}
	for _, tt := range []struct {
		name   string
		ns     []Normalizer
		strict Strict
		want   Status
	}{
		{"panic, production", []Normalizer{boom}, Strict{}, StatusDone},
		{"panic, strict normalizer", []Normalizer{boom}, Strict{Normalizer: true}, StatusFailed},
		{"panic, strict pairing only", []Normalizer{boom}, Strict{Pairing: true}, StatusDone},
		{"custom repair, strict normalizer", []Normalizer{fix}, Strict{Normalizer: true}, StatusFailed},
		{"custom repair, strict pairing only", []Normalizer{fix}, Strict{Pairing: true}, StatusDone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{resps: []*Response{{Content: "ok"}}}
			var events []Event
			out := Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, Strict: tt.strict,
				Normalizers: append(DefaultNormalizers(), tt.ns...), Reporter: ReporterFunc(func(e Event) { events = append(events, e) })})
			if out.Status != tt.want || (tt.want == StatusFailed) != errors.Is(out.Err, ErrStrict) {
				t.Errorf("outcome = %s %v", out.Status, out.Err)
			}
			if !hasEvent(events, EventRepair) {
				t.Error("no repair event")
			}
			// Seed 002: a production run says what strict mode would
			// have stopped at.
			if want := tt.want == StatusDone; hasEvent(events, EventStrictWouldFail) != want {
				t.Errorf("strict_mode_would_fail event: %v, want %v", !want, want)
			}
		})
	}
}

// TestRun_A14_EventsAreLogged: every retry and repair is a Reporter event
// with a level and a slog record at that level with the same facts.
func TestRun_A14_EventsAreLogged(t *testing.T) {
	var logs bytes.Buffer
	m := &scripted{resps: []*Response{{}, {Content: "ok"}}}
	var events []Event
	Run(t.Context(), &RunOptions{Model: m, Tools: &fakeRunner{}, History: []Message{result("ghost", "x")},
		Logger:   slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Reporter: ReporterFunc(func(e Event) { events = append(events, e) })})
	var kinds []string
	for _, e := range events {
		if e.Level == "" {
			t.Errorf("event without level: %+v", e)
		}
		if e.Kind == EventRetry || e.Kind == EventRepair {
			kinds = append(kinds, string(e.Kind)+"/"+string(e.Level))
		}
	}
	if strings.Join(kinds, ",") != "repair/warning,retry/warning" {
		t.Errorf("events = %q", kinds)
	}
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	want := map[string]string{"repair": "WARN", "retry": "WARN", "done": "INFO"}
	for _, r := range records {
		if lvl, ok := want[r["kind"].(string)]; ok {
			if r["level"] != lvl {
				t.Errorf("record %v: level %v, want %s", r, r["level"], lvl)
			}
			delete(want, r["kind"].(string))
		}
	}
	if len(want) != 0 {
		t.Errorf("no log records for %v in:\n%s", want, logs.String())
	}
	if strings.Contains(logs.String(), `"x"`) {
		t.Error("a message's content was logged")
	}
}

// recorder is a tool that records whether it ran.
type recorder struct{ ran int }

func (r *recorder) tool() *tools.Tool {
	return &tools.Tool{Name: "touch", Description: "touch a file", Risk: tools.RiskNone,
		Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path"],"properties":{"path":{"type":"string","minLength":1}}}`),
		Run: func(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
			r.ran++
			return tools.Result{Content: "touched"}, nil
		}}
}

// TestRun_A3_MalformedArgumentsNeverRun goes through a real tools.Gateway:
// arguments that are not JSON (a cut stream, a sloppy model) never reach
// the tool; the model gets the schema and its retry runs.
func TestRun_A3_MalformedArgumentsNeverRun(t *testing.T) {
	rec := &recorder{}
	reg := tools.NewRegistry()
	reg.MustRegister(rec.tool())
	runner, err := tools.NewGateway(reg, &tools.GatewayOptions{Allowed: []string{"touch"}})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{resps: []*Response{
		{ToolCalls: []ToolCall{{ID: "1", Name: "touch", Arguments: `{"path": "a.go"`}}},
		{ToolCalls: []ToolCall{{ID: "2", Name: "touch", Arguments: `["a.go"]`}}},
		{ToolCalls: []ToolCall{{ID: "3", Name: "touch", Arguments: `{"path": "a.go", "mode": "rm"}`}}},
		{ToolCalls: []ToolCall{{ID: "4", Name: "touch", Arguments: `{"path": "a.go"}`}}},
		{Content: "done"},
	}}
	out := Run(t.Context(), &RunOptions{Model: m, Tools: runner})
	if out.Status != StatusDone || rec.ran != 1 {
		t.Fatalf("outcome %+v, tool ran %d times, want once", out, rec.ran)
	}
	for i, want := range []string{"matching the schema", "must be a JSON object", "additional properties"} {
		msgs := m.reqs[i+1].Messages
		last := msgs[len(msgs)-1]
		if last.Role != RoleTool || !strings.Contains(last.Content, "invalid_args") || !strings.Contains(last.Content, want) {
			t.Errorf("result %d = %q, want invalid_args mentioning %q", i, last.Content, want)
		}
	}
	if !strings.Contains(m.reqs[1].Messages[3].Content, `\"required\":[\"path\"]`) {
		t.Errorf("no schema hint: %s", m.reqs[1].Messages[3].Content)
	}
}

// TestRun_A4_Judge: what arrived decides between using, retrying and
// failing.
func TestRun_A4_Judge(t *testing.T) {
	cut := errors.New("cut")
	stalled := errors.Join(ErrModelUnavailable, ErrModelStalled)
	valid := []ToolCall{{ID: "1", Name: "f", Arguments: `{"a":1}`}}
	broken := []ToolCall{{ID: "1", Name: "f", Arguments: `{"a":`}}
	for _, tt := range []struct {
		name string
		resp *Response
		err  error
		want string
	}{
		{"whole text", &Response{Content: "x", FinishReason: "stop"}, nil, ""},
		{"whole text, error after the finish", &Response{Content: "x", FinishReason: "stop"}, cut, ""},
		{"nothing", nil, nil, whyEmpty},
		{"empty, finished", &Response{FinishReason: "stop"}, nil, whyEmpty},
		{"empty, incomplete", &Response{Incomplete: true}, nil, whyIncomplete},
		{"error without answer", nil, cut, whyFatal},
		{"stall without answer", nil, stalled, whyStalled},
		{"partial text", &Response{Content: "x", Incomplete: true}, nil, whyIncomplete},
		{"partial text, cut", &Response{Content: "x", Incomplete: true}, cut, whyIncomplete},
		{"partial text, stalled", &Response{Content: "x", Incomplete: true}, stalled, whyStalled},
		{"complete calls, no finish", &Response{ToolCalls: valid, Incomplete: true}, nil, ""},
		{"complete calls, cut", &Response{ToolCalls: valid, Incomplete: true}, cut, ""},
		{"broken call", &Response{ToolCalls: broken, Incomplete: true}, cut, whyIncomplete},
		{"call without name", &Response{ToolCalls: []ToolCall{{ID: "1", Arguments: "{}"}}, Incomplete: true}, nil, whyIncomplete},
		{"broken call, finished (A3: the gateway refuses it)", &Response{ToolCalls: broken, FinishReason: "tool_calls"}, nil, ""},
	} {
		if got := judge(tt.resp, tt.err); got != tt.want {
			t.Errorf("%s: judge = %q, want %q", tt.name, got, tt.want)
		}
	}
}
