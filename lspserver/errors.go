package lspserver

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
)

// LSP error codes beyond JSON-RPC's, from the specification. We never invent
// codes: our own failures are CodeRequestFailed with a data.reason.
const (
	CodeRequestCancelled jsonrpc2.Code = -32800
	CodeContentModified  jsonrpc2.Code = -32801
	CodeRequestFailed    jsonrpc2.Code = -32803
)

// Reason is the closed list of data.reason values of a RequestFailed error.
// Editor plugins switch on these, never on the message.
type Reason string

// The reasons a command can fail with.
const (
	ReasonSchemaInvalid    Reason = "schema.invalid"     // the command's arguments are wrong
	ReasonPathEscape       Reason = "policy.path_escape" // a URI outside the workspace
	ReasonPolicyInvalid    Reason = "policy.invalid"     // a policy file cannot be read
	ReasonModelUnavailable Reason = "model.unavailable"  // endpoint down, garbage, or not configured
	ReasonModelAuth        Reason = "model.auth"         // the endpoint refused the API key
	ReasonModelRateLimited Reason = "model.rate_limited"
	ReasonBudgetExhausted  Reason = "budget.exhausted"
	ReasonStrict           Reason = "strict.violation" // strict mode turned a repair into a failure (A8)
	ReasonCanceled         Reason = "canceled"
	ReasonUserDeclined     Reason = "user.declined"
	ReasonSessionNotFound  Reason = "session.not_found" // no session or run with that ID (A16)
	ReasonNothingToRevert  Reason = "session.nothing_to_revert"
	ReasonInternal         Reason = "internal"
)

// commandError is an application failure of a command.
type commandError struct {
	reason Reason
	msg    string
}

func (e *commandError) Error() string { return e.msg }

func failf(reason Reason, msg string) error { return &commandError{reason: reason, msg: msg} }

// toWireError maps an error from a handler to the JSON-RPC error the client
// sees. It is the only place that chooses wire codes.
func toWireError(err error) *jsonrpc2.Error {
	if err == nil {
		return nil
	}
	var we *jsonrpc2.Error
	if errors.As(err, &we) {
		return we
	}
	if errors.Is(err, context.Canceled) {
		return jsonrpc2.NewError(CodeRequestCancelled, "request cancelled")
	}
	reason, msg := ReasonInternal, err.Error()
	var ce *commandError
	switch {
	case errors.As(err, &ce):
		reason = ce.reason
	case errors.Is(err, agent.ErrModelAuth):
		reason = ReasonModelAuth
	case errors.Is(err, agent.ErrModelRateLimited):
		reason = ReasonModelRateLimited
	case errors.Is(err, agent.ErrModelUnavailable), errors.Is(err, agent.ErrModelBadResponse),
		errors.Is(err, agent.ErrNoResponse), errors.Is(err, agent.ErrModel):
		reason = ReasonModelUnavailable
	case errors.Is(err, agent.ErrStrict):
		reason = ReasonStrict
	case errors.Is(err, agent.ErrBudgetExhausted):
		reason = ReasonBudgetExhausted
	}
	data, _ := json.Marshal(struct {
		Reason Reason `json:"reason"`
	}{reason})
	return &jsonrpc2.Error{Code: CodeRequestFailed, Message: msg, Data: data}
}

func invalidParams(msg string) error { return jsonrpc2.NewError(jsonrpc2.InvalidParams, msg) }
