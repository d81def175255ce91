package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/prompts"
)

// Compaction parameters (A9).
const (
	compactAt        = 0.8  // compact before a request above this share of the context
	digestMessages   = 10   // an empty summary falls back to a digest of this many messages
	microStubBytes   = 200  // micro-compaction keeps this much of an old tool result
	microMinBytes    = 600  // and leaves shorter results alone
	transcriptResult = 2000 // bytes of each tool result in the compaction transcript
	transcriptText   = 4000 // bytes of each other message in it
)

// compactState is the context budget and the circuit breaker of one run.
type compactState struct {
	lastPrompt int64 // prompt tokens the model reported for the last request
	lastLen    int   // messages in that request
	failures   int   // consecutive failed compactions
	off        bool  // the breaker opened: no more compaction in this run
}

// observe records the usage the model reported for a request of n messages.
func (b *compactState) observe(u Usage, n int) {
	if u.PromptTokens > 0 {
		b.lastPrompt, b.lastLen = u.PromptTokens, n
	}
}

// estimate is the token count of a request with msgs and specs: the
// larger of two readings, so that compaction never depends on the model's
// honesty (issue 27 item 3) — 4 bytes a token for everything, and the
// reported usage of the last request plus 4 bytes a token for what came
// after it. A server that reports no usage, or too little, still compacts.
func (b *compactState) estimate(msgs []Message, specs []ToolSpec) int {
	n := messageBytes(msgs)
	for _, s := range specs {
		n += len(s.Name) + len(s.Description) + len(s.Parameters)
	}
	est := n / 4
	if b.lastPrompt > 0 && b.lastLen <= len(msgs) {
		est = max(est, int(b.lastPrompt)+messageBytes(msgs[b.lastLen:])/4)
	}
	return est
}

func messageBytes(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += 8 + len(m.Content) + len(m.ToolCallID) + 4*imageTokens*len(m.Images)
		for _, c := range m.ToolCalls {
			n += 16 + len(c.ID) + len(c.Name) + len(c.Arguments)
		}
	}
	return n
}

// maybeCompact compacts the conversation when the next request would fill
// more than 80 % of the context. It reports whether the conversation
// changed; an error is the end of the run (cancelled, or strict mode).
func (r *run) maybeCompact(ctx context.Context, turn int) (bool, error) {
	limit := r.opts.ContextTokens
	if limit < 0 || r.budget.off {
		return false, nil
	}
	est := r.budget.estimate(r.msgs, r.specs)
	if float64(est) <= compactAt*float64(limit) {
		return false, nil
	}
	return r.compact(ctx, turn, est)
}

// compact replaces the middle of the conversation with a summary. The
// circuit breaker (A9): the first failure is retried, the second falls
// back to micro-compaction (old tool results cut to a stub), the third
// turns compaction off for the run, with a warning each time. A success
// closes the breaker again.
func (r *run) compact(ctx context.Context, turn, est int) (bool, error) {
	head, span, tail := r.splitForCompaction()
	if len(span) == 0 || (len(span) == 1 && strings.HasPrefix(span[0].Content, summaryHeader)) {
		return false, nil // nothing left to summarize: the last turn alone is that large
	}
	for {
		summary, err := r.summarize(ctx, span, turn)
		if err == nil {
			r.budget.failures, r.budget.lastPrompt = 0, 0
			msgs := slices.Concat(head, []Message{{Role: RoleUser, Content: summaryHeader + summary}}, tail)
			r.msgs = msgs
			r.out.Compactions++
			r.emit(Event{Kind: EventCompaction, Turn: turn, Message: fmt.Sprintf(
				"compacted %d messages into a summary (about %d → %d tokens)", len(span), est, r.budget.estimate(msgs, r.specs))})
			return true, nil
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if errors.Is(err, ErrStrict) {
			return false, err
		}
		r.budget.failures++
		if serr := Check(true, r.opts.Strict.Compaction, ReporterFunc(r.emitReport), "compaction failed: "+err.Error()); serr != nil {
			return false, serr
		}
		switch r.budget.failures {
		case 1:
			r.emit(Event{Kind: EventWarning, Turn: turn, Code: "compaction_retry",
				Message: "compaction failed (" + err.Error() + "); retrying"})
			continue
		case 2:
			n := r.microCompact(len(r.msgs) - len(tail))
			r.budget.lastPrompt = 0
			r.emit(Event{Kind: EventWarning, Turn: turn, Code: "micro_compaction",
				Message: fmt.Sprintf("compaction failed again (%s); cut %d old tool results instead", err.Error(), n)})
			return n > 0, nil
		}
		r.budget.off = true
		r.emit(Event{Kind: EventWarning, Turn: turn, Code: "compaction_disabled",
			Message: "compaction failed three times (" + err.Error() + "); it is off for this run, and the conversation may outgrow the model's context"})
		return false, nil
	}
}

// summaryHeader starts the message that replaces the compacted messages.
const summaryHeader = "[Summary of the earlier conversation, compacted to save context]\n"

// splitForCompaction cuts the conversation into what stays before the
// summary (the system prompt and the task), what is summarized, and what
// stays after it: the last assistant message and its tool results, so that
// every call keeps its result and the pairing rules still hold.
func (r *run) splitForCompaction() (head, span, tail []Message) {
	task := -1
	for i, m := range r.msgs {
		if m.Role == RoleUser && !strings.HasPrefix(m.Content, summaryHeader) {
			task = i // the last user message that is not a summary is the task
		}
	}
	cut := len(r.msgs)
	for i := len(r.msgs) - 1; i > task; i-- {
		if r.msgs[i].Role == RoleAssistant {
			cut = i
			break
		}
	}
	for i, m := range r.msgs[:cut] {
		switch {
		case m.Role == RoleSystem && i == 0, i == task:
			head = append(head, m)
		default:
			span = append(span, m)
		}
	}
	return head, span, r.msgs[cut:]
}

// summarize asks the model for a summary of span, with the three layers of
// A9: the prompt forbids tools, the request carries none, and tool calls in
// the answer become text. An empty summary falls back to a digest.
func (r *run) summarize(ctx context.Context, span []Message, turn int) (string, error) {
	req := &Request{
		Messages: []Message{
			{Role: RoleSystem, Content: prompts.Compact(prompts.CompactData{Brief: r.opts.Mode.Brief()})},
			{Role: RoleUser, Content: transcript(span, r.opts.ContextTokens*4/2)},
		},
		Background: true, // fails fast on overload: the breaker decides
	}
	req.OnRetry = func(rt Retry) {
		r.emit(Event{Kind: EventRetry, Turn: turn, Code: "compaction", Message: fmt.Sprintf("compaction request: %s; retry %d", rt.Reason, rt.Attempt-1)})
	}
	resp, err := r.opts.Model.Stream(ctx, req, nil)
	if resp != nil {
		r.out.Usage.PromptTokens += resp.Usage.PromptTokens
		r.out.Usage.CompletionTokens += resp.Usage.CompletionTokens
	}
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(resp.Content)
	if len(resp.ToolCalls) > 0 {
		names := make([]string, len(resp.ToolCalls))
		for i, c := range resp.ToolCalls {
			names[i] = c.Name
		}
		text = strings.TrimSpace(text + "\n" + callsAsText(resp.ToolCalls))
		r.emit(Event{Kind: EventRepair, Turn: turn, Code: "compaction_tool_calls", Repairs: names,
			Message: fmt.Sprintf("the compaction answer had %d tool calls; kept as text, not run", len(names))})
		if err := Check(true, r.opts.Strict.Compaction, ReporterFunc(r.emitReport), "tool calls in the compaction answer"); err != nil {
			return "", err
		}
	}
	if text == "" {
		text = digest(span, digestMessages)
		r.emit(Event{Kind: EventRepair, Turn: turn, Code: "compaction_digest",
			Message: fmt.Sprintf("the compaction summary was empty; used a digest of the last %d messages", min(len(span), digestMessages))})
		if err := Check(true, r.opts.Strict.Compaction, ReporterFunc(r.emitReport), "empty compaction summary"); err != nil {
			return "", err
		}
	}
	return text, nil
}

// callsAsText renders tool calls of a compaction answer as text.
func callsAsText(calls []ToolCall) string {
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "%s %s\n", c.Name, clip(c.Arguments, transcriptResult))
	}
	return b.String()
}

// microCompact cuts the tool results among the first n messages to a
// stub and returns how many it cut. The structure does not change, so the
// pairing rules still hold.
func (r *run) microCompact(n int) int {
	cut := 0
	for i := range r.msgs[:n] {
		m := &r.msgs[i]
		if m.Role != RoleTool || len(m.Content) < microMinBytes {
			continue
		}
		m.Content = fmt.Sprintf("%s\n[… tool result cut to save context; it was %d bytes: call the tool again if needed]",
			clip(firstLine(m.Content), microStubBytes), len(m.Content))
		cut++
	}
	return cut
}

// transcript renders msgs as text for the compaction request, each message
// bounded, the whole bounded by max bytes (the oldest dropped first).
func transcript(msgs []Message, max int) string {
	names := map[string]string{}
	var lines []string
	for _, m := range msgs {
		switch {
		case m.Role == RoleTool:
			lines = append(lines, fmt.Sprintf("[tool result of %s]\n%s", names[m.ToolCallID], clip(m.Content, transcriptResult)))
		default:
			if strings.TrimSpace(m.Content) != "" {
				lines = append(lines, fmt.Sprintf("[%s]\n%s", m.Role, clip(m.Content, transcriptText)))
			}
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
				lines = append(lines, fmt.Sprintf("[%s called %s] %s", m.Role, c.Name, clip(c.Arguments, transcriptText/4)))
			}
		}
	}
	total, start := 0, len(lines)
	for start > 0 && total+len(lines[start-1]) < max {
		start--
		total += len(lines[start]) + 2
	}
	if start > 0 {
		lines = append([]string{fmt.Sprintf("[… %d earlier entries omitted]", start)}, lines[start:]...)
	}
	return strings.Join(lines, "\n\n")
}

// digest is the fallback summary: the role and first line of each of the
// last n messages, and the file paths mentioned anywhere in msgs.
func digest(msgs []Message, n int) string {
	var b strings.Builder
	b.WriteString("The summary was empty; this is a digest of the last messages.\n")
	for _, m := range msgs[max(0, len(msgs)-n):] {
		line := clip(firstLine(m.Content), 160)
		for _, c := range m.ToolCalls {
			line = strings.TrimSpace(line + " called " + c.Name)
		}
		fmt.Fprintf(&b, "- %s: %s\n", m.Role, line)
	}
	if paths := mentionedPaths(msgs); len(paths) > 0 {
		b.WriteString("Files mentioned: " + strings.Join(paths, ", ") + "\n")
	}
	return b.String()
}

// sourceExt are extensions that make a word without a slash a file name.
var sourceExt = map[string]bool{}

func init() {
	for e := range strings.FieldsSeq("go mod sum md txt json yaml yml toml js mjs ts tsx jsx py rs c h cc cpp hpp java kt rb php sh lua html css sql proto xml cfg ini lock tmpl") {
		sourceExt[e] = true
	}
}

var pathRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[A-Za-z][A-Za-z0-9]{0,7}\b`)
}) // compiled on first use: package init runs in every sandbox helper too

// mentionedPaths collects file paths from tool-call arguments ("path"
// fields) and from text that looks like a path with an extension.
func mentionedPaths(msgs []Message) []string {
	var out []string
	add := func(p string) {
		if p != "" && len(p) < 256 && !slices.Contains(out, p) && len(out) < 50 {
			out = append(out, p)
		}
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			var args struct {
				Path string `json:"path"`
			}
			if json.Unmarshal([]byte(c.Arguments), &args) == nil {
				add(args.Path)
			}
		}
		for _, p := range pathRE().FindAllString(m.Content, 100) {
			if strings.Contains(p, "/") || sourceExt[p[strings.LastIndexByte(p, '.')+1:]] {
				add(p)
			}
		}
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// clip bounds s to about n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
