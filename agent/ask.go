package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Why an answer is not usable as it came; "" means usable.
const (
	whyFatal      = "fatal"      // an error with nothing to use: no retry here
	whyEmpty      = "empty"      // A2: no content and no tool calls
	whyIncomplete = "incomplete" // A4: no finish reason, or the stream broke
	whyStalled    = "stalled"    // no bytes for the stall timeout
)

var retryMessages = map[string]string{
	whyEmpty:      "the model sent an empty answer; retrying once",
	whyIncomplete: "the model's answer ended early (no finish reason); retrying once",
	whyStalled:    "the model stopped sending; retrying once",
}

// ask sends one request and applies the answer-level fallbacks. The Model
// retries HTTP failures itself (each one reported through Request.OnRetry);
// here an empty answer (A2), an incomplete stream (A4) and a stall are
// retried once. A second stall fails the run. If the second answer is no
// better otherwise, what arrived decides: a
// partial text is returned marked incomplete, partial tool calls go to the
// gateway (which never runs arguments that are not JSON, A3), and nothing
// at all fails the run with "model did not respond" or the model's error.
func (r *run) ask(ctx context.Context, req *Request, turn int) (*Response, error) {
	req.OnRetry = func(rt Retry) {
		code := "connection"
		if rt.Status != 0 {
			code = strconv.Itoa(rt.Status)
		}
		r.emit(Event{Kind: EventRetry, Turn: turn, Code: code,
			Message: fmt.Sprintf("%s; retry %d in %s", rt.Reason, rt.Attempt-1, rt.Wait.Round(time.Millisecond))})
	}
	onText := func(delta string) { r.emit(Event{Kind: EventText, Turn: turn, Message: delta}) }
	var first *Response
	for attempt := 1; ; attempt++ {
		resp, err := r.opts.Model.Stream(ctx, req, onText)
		if resp != nil {
			r.out.Usage.PromptTokens += resp.Usage.PromptTokens
			r.out.Usage.CompletionTokens += resp.Usage.CompletionTokens
			r.budget.observe(resp.Usage, len(req.Messages))
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		why := judge(resp, err)
		switch why {
		case "":
			if (resp.Incomplete || err != nil) && len(resp.ToolCalls) > 0 {
				r.emit(Event{Kind: EventWarning, Turn: turn, Code: "incomplete_tool_calls",
					Message: fmt.Sprintf("the model's answer ended early; running the %d complete tool calls that arrived", len(resp.ToolCalls))})
			}
			return resp, nil
		case whyFatal:
			if r.dropImages(req, err, turn) {
				attempt = 0 // the text alone is a new first try
				continue
			}
			return nil, err
		}
		if attempt == 1 {
			first = resp
			r.emit(Event{Kind: EventRetry, Turn: turn, Code: why, Message: retryMessages[why]})
			continue
		}
		return r.settle(resp, first, err, turn)
	}
}

// judge says whether an answer can be used as it is.
func judge(resp *Response, err error) string {
	stalled := errors.Is(err, ErrModelStalled)
	switch {
	case resp == nil && stalled:
		return whyStalled
	case resp == nil && err != nil:
		return whyFatal
	case resp == nil:
		return whyEmpty
	case !hasOutput(resp):
		if stalled {
			return whyStalled
		}
		if err != nil || resp.Incomplete {
			return whyIncomplete
		}
		return whyEmpty
	case !resp.Incomplete:
		return "" // a finish reason arrived: the answer is whole
	case len(resp.ToolCalls) > 0 && validCalls(resp.ToolCalls):
		return "" // A4: complete calls are worth running
	case stalled:
		return whyStalled
	}
	return whyIncomplete
}

// settle decides from what arrived after two unusable answers. A second
// stall fails the run (model.unavailable) whatever arrived before it, as
// a stall before the headers does: a model that goes silent mid-answer is
// not a run that is done (issue 26 item 7c).
func (r *run) settle(resp, first *Response, err error, turn int) (*Response, error) {
	best := resp
	if (best == nil || !hasOutput(best)) && first != nil && hasOutput(first) {
		best = first
	}
	switch {
	case errors.Is(err, ErrModelStalled):
		return nil, err
	case best != nil && len(best.ToolCalls) > 0:
		r.emit(Event{Kind: EventWarning, Turn: turn, Code: "partial_tool_calls",
			Message: "the model's answer ended early twice; its tool calls go to the gateway, which refuses arguments that are not whole JSON"})
		return best, nil
	case best != nil && strings.TrimSpace(best.Content) != "":
		cp := *best
		cp.Incomplete = true
		r.emit(Event{Kind: EventWarning, Turn: turn, Code: "incomplete",
			Message: "the model's answer ended early twice; returning the partial answer"})
		return &cp, nil
	case err != nil:
		return nil, err
	}
	return nil, ErrNoResponse
}

func hasOutput(r *Response) bool {
	return strings.TrimSpace(r.Content) != "" || len(r.ToolCalls) > 0
}

// validCalls reports whether every call has a name and a JSON object as
// arguments: what a stream cut in the middle of a call never has.
func validCalls(calls []ToolCall) bool {
	for _, c := range calls {
		var obj map[string]json.RawMessage
		if c.Name == "" || json.Unmarshal([]byte(c.Arguments), &obj) != nil || obj == nil {
			return false
		}
	}
	return true
}

// dropImages takes the images out of a request the model refused (a
// client error, such as a model without vision), so that the text alone
// is sent, with a warning; false when the request had none (A12).
func (r *run) dropImages(req *Request, err error, turn int) bool {
	if !errors.Is(err, ErrModel) {
		return false
	}
	dropped := false
	for i := range req.Messages {
		if m := &req.Messages[i]; len(m.Images) > 0 {
			m.Content += imagesText(m.Images) + " (not sent: the model refused images)"
			m.Images, dropped = nil, true
		}
	}
	if dropped {
		r.emit(Event{Kind: EventWarning, Turn: turn, Code: "images_refused",
			Message: "the model refused the request with images (" + clip(err.Error(), 200) + "); sending the text alone"})
	}
	return dropped
}
