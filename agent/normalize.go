package agent

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Repair is one change a [Normalizer] made to the conversation.
type Repair struct {
	// Kind is one of synthetic_tool_result, duplicate_tool_use,
	// duplicate_tool_result, orphan_tool_result, missing_tool_call_id,
	// empty_assistant_removed, or a custom normalizer's own.
	Kind string
	ID   string // the tool-call ID concerned, if any
}

func (r Repair) String() string {
	if r.ID == "" {
		return r.Kind
	}
	return r.Kind + ":" + safeID(r.ID)
}

// Normalizer is one step of the pipeline run over the conversation before
// every model request (A7). Apply must not modify its argument: it returns
// the repaired conversation (or the same slice when nothing changed) and
// the repairs it made. Lower priorities run first.
type Normalizer struct {
	Name     string
	Priority int
	Apply    func([]Message) ([]Message, []Repair)
}

// The names and priorities of the built-in normalizers. The order matters:
// pairing first injects synthetic results and drops duplicates, then the
// orphan remover takes out every result left without its call; the other
// way round, a synthetic result would never be checked.
const (
	NameToolResultPairing           = "tool_result_pairing"
	NameOrphanToolResultRemover     = "orphan_tool_result_remover"
	PriorityToolResultPairing       = 8
	PriorityOrphanToolResultRemover = 10
)

// SyntheticResult is the content of the tool result injected for a call
// that has none (an interrupted session, a cut history).
const SyntheticResult = `{"code":"internal","reason":"no result was recorded for this call"}`

// DefaultNormalizers returns the built-in pipeline, sorted by priority.
func DefaultNormalizers() []Normalizer {
	return []Normalizer{ToolResultPairing(), OrphanToolResultRemover()}
}

// ToolResultPairing (priority 8) makes every assistant tool call have
// exactly one result in the tool messages that follow it: a call without a
// result gets a synthetic error result ([SyntheticResult]); of calls with
// the same ID anywhere in the conversation only the first is kept; of
// results with the same ID after one assistant message only the first is
// kept. A call without an ID gets one. An assistant message left with
// neither text nor calls is removed. Results that belong to no call of the
// message they follow are left to [OrphanToolResultRemover].
func ToolResultPairing() Normalizer {
	return Normalizer{Name: NameToolResultPairing, Priority: PriorityToolResultPairing, Apply: pairResults}
}

// OrphanToolResultRemover (priority 10) removes tool results whose call ID
// is not a call of the assistant message they follow (the API rejects
// them): a result at the start, after a user message, or after an
// assistant message that did not make that call; and a second result for
// a call already answered there.
func OrphanToolResultRemover() Normalizer {
	return Normalizer{Name: NameOrphanToolResultRemover, Priority: PriorityOrphanToolResultRemover, Apply: removeOrphans}
}

func pairResults(in []Message) ([]Message, []Repair) {
	var reps []Repair
	out := make([]Message, 0, len(in)+2)
	seen := map[string]bool{}
	fresh := 0
	for i := 0; i < len(in); {
		m := in[i]
		i++
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			out = append(out, m)
			continue
		}
		calls := make([]ToolCall, 0, len(m.ToolCalls))
		for _, c := range m.ToolCalls {
			if c.ID == "" {
				for c.ID == "" || seen[c.ID] {
					fresh++
					c.ID = fmt.Sprintf("call_norm_%d", fresh)
				}
				reps = append(reps, Repair{"missing_tool_call_id", c.ID})
			}
			if seen[c.ID] {
				reps = append(reps, Repair{"duplicate_tool_use", c.ID})
				continue
			}
			seen[c.ID] = true
			calls = append(calls, c)
		}
		m.ToolCalls = calls
		own := map[string]bool{}
		for _, c := range calls {
			own[c.ID] = true
		}
		have := map[string]bool{}
		var results []Message
		for ; i < len(in) && in[i].Role == RoleTool; i++ {
			r := in[i]
			if own[r.ToolCallID] {
				if have[r.ToolCallID] {
					reps = append(reps, Repair{"duplicate_tool_result", r.ToolCallID})
					continue
				}
				have[r.ToolCallID] = true
			}
			results = append(results, r)
		}
		for _, c := range calls {
			if !have[c.ID] {
				results = append(results, Message{Role: RoleTool, ToolCallID: c.ID, Content: SyntheticResult})
				reps = append(reps, Repair{"synthetic_tool_result", c.ID})
			}
		}
		if len(calls) == 0 && strings.TrimSpace(m.Content) == "" {
			reps = append(reps, Repair{Kind: "empty_assistant_removed"})
		} else {
			out = append(out, m)
		}
		out = append(out, results...)
	}
	if len(reps) == 0 {
		return in, nil
	}
	return out, reps
}

func removeOrphans(in []Message) ([]Message, []Repair) {
	var reps []Repair
	out := make([]Message, 0, len(in))
	// The calls of the assistant message the current tool messages follow,
	// true while unanswered; nil outside such a block.
	var block map[string]bool
	for _, m := range in {
		switch m.Role {
		case RoleAssistant:
			block = map[string]bool{}
			for _, c := range m.ToolCalls {
				block[c.ID] = true
			}
		case RoleTool:
			open, ok := block[m.ToolCallID]
			switch {
			case !ok:
				reps = append(reps, Repair{"orphan_tool_result", m.ToolCallID})
				continue
			case !open:
				// A second answer, e.g. after pairing removed an empty
				// assistant message between two blocks.
				reps = append(reps, Repair{"duplicate_tool_result", m.ToolCallID})
				continue
			}
			block[m.ToolCallID] = false
		default:
			block = nil
		}
		out = append(out, m)
	}
	if len(reps) == 0 {
		return in, nil
	}
	return out, reps
}

// Applied is what one normalizer of a pipeline run did.
type Applied struct {
	Name       string
	Repairs    []Repair
	Before     int    // messages before
	After      int    // messages after
	Diagnostic string // the shape of the conversation before, see [Diagnose]
}

// ErrNormalizer wraps the failure of a normalizer: a panic, or a
// conversation still invalid after the pipeline.
var ErrNormalizer = errors.New("normalizer failed")

// Normalize runs ns over msgs in priority order (stable for equal
// priorities) and returns the result and what each normalizer that
// repaired something did. A normalizer that panics is skipped (its input
// goes on to the next one) and reported in err, wrapping [ErrNormalizer];
// so is a conversation that still breaks the pairing rules at the end.
func Normalize(msgs []Message, ns []Normalizer) (out []Message, applied []Applied, err error) {
	ns = slices.Clone(ns)
	slices.SortStableFunc(ns, func(a, b Normalizer) int { return cmp.Compare(a.Priority, b.Priority) })
	out = msgs
	var errs []error
	for _, n := range ns {
		next, reps, perr := applySafely(n, out)
		if perr != nil {
			errs = append(errs, perr)
			continue
		}
		if len(reps) > 0 {
			applied = append(applied, Applied{Name: n.Name, Repairs: reps, Before: len(out), After: len(next), Diagnostic: Diagnose(out)})
		}
		out = next
	}
	if err := ValidatePairing(out); err != nil {
		errs = append(errs, fmt.Errorf("%w: after the pipeline: %w", ErrNormalizer, err))
	}
	return out, applied, errors.Join(errs...)
}

func applySafely(n Normalizer, msgs []Message) (out []Message, reps []Repair, err error) {
	defer func() {
		if p := recover(); p != nil {
			// The panic value may quote the conversation: report its type only.
			out, reps, err = nil, nil, fmt.Errorf("%w: %s panicked (%T)", ErrNormalizer, n.Name, p)
		}
	}()
	if n.Apply == nil {
		return msgs, nil, nil
	}
	out, reps = n.Apply(msgs)
	return out, reps, nil
}

// ValidatePairing reports the first way msgs breaks the rules the API
// enforces: every assistant tool call has exactly one result among the
// tool messages right after it, call IDs are unique and not empty, and
// every tool message answers a call of the assistant message it follows.
func ValidatePairing(msgs []Message) error {
	seen := map[string]bool{}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == RoleTool {
			return fmt.Errorf("message %d: tool result %s answers no call", i, safeID(m.ToolCallID))
		}
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		open := map[string]bool{}
		for _, c := range m.ToolCalls {
			if c.ID == "" || seen[c.ID] {
				return fmt.Errorf("message %d: tool call ID %q empty or repeated", i, safeID(c.ID))
			}
			seen[c.ID], open[c.ID] = true, true
		}
		for i+1 < len(msgs) && msgs[i+1].Role == RoleTool {
			i++
			id := msgs[i].ToolCallID
			if !open[id] {
				return fmt.Errorf("message %d: tool result %s answers no open call", i, safeID(id))
			}
			delete(open, id)
		}
		for id := range open {
			return fmt.Errorf("message %d: tool call %s has no result", i, safeID(id))
		}
	}
	return nil
}

// Diagnose describes the shape of a conversation for logs and events:
// index, role, block types and tool-call IDs, never content. Example:
//
//	[0] system(text); [1] user(text); [2] assistant(tool_use=[a,b]); [3] tool(tool_result=a)
func Diagnose(msgs []Message) string {
	const maxLen = 4000
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString("; ")
		}
		var parts []string
		if m.Content != "" {
			parts = append(parts, "text")
		}
		if len(m.ToolCalls) > 0 {
			ids := make([]string, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				ids[j] = safeID(c.ID)
			}
			parts = append(parts, "tool_use=["+strings.Join(ids, ",")+"]")
		}
		if m.Role == RoleTool {
			parts = append(parts, "tool_result="+safeID(m.ToolCallID))
		}
		if len(parts) == 0 {
			parts = append(parts, "empty")
		}
		fmt.Fprintf(&b, "[%d] %s(%s)", i, m.Role, strings.Join(parts, ","))
		if b.Len() > maxLen {
			fmt.Fprintf(&b, "; … %d more", len(msgs)-i-1)
			break
		}
	}
	return b.String()
}

// safeID keeps an ID printable and short: IDs come from the model.
func safeID(id string) string {
	const maxID = 48
	out := []byte{}
	for i := 0; i < len(id) && len(out) < maxID; i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.', c == ':':
			out = append(out, c)
		default:
			out = append(out, '?')
		}
	}
	if len(id) > maxID {
		out = append(out, "…"...)
	}
	if len(out) == 0 {
		return `""`
	}
	return string(out)
}
