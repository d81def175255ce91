package builtin

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/netguard"
	"github.com/agentls/agentls/tools"
)

// httpMaxText bounds the page text in a result, under MaxResultChars so
// the header lines and the truncation note survive.
const httpMaxText = 28000

// HTTPFetch returns the http_fetch tool (B4): a GET or HEAD of a URL the
// network policy ([Limits.HTTP]) allows, with the body turned into text.
//
// Error codes: every refusal of the URL by the policy — scheme, host, port,
// path, IP literal, a refused DNS answer, a redirect to any of these — is
// host_not_allowed, so the model learns one thing: this target is off
// limits, ask the user. A URL that is not well-formed or carries
// credentials, and a method the policy does not allow, are invalid_args:
// the model can fix those itself. Reasons never list the allowlist
// ([PolicyRefusal] holds the mapping).
func HTTPFetch() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "http_fetch",
		Description: description("http_fetch"),
		Risk:        tools.RiskNetwork,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["url"],
	"properties": {
		"url": {"type": "string", "minLength": 1, "maxLength": 4096},
		"method": {"type": "string", "enum": ["GET", "HEAD"]}
	}
}`),
	}, checkHTTPFetch, runHTTPFetch)
}

type httpFetchArgs struct {
	URL    string `json:"url"`
	Method string `json:"method,omitempty"`
}

func runHTTPFetch(ctx context.Context, env *tools.Env, a *httpFetchArgs) (tools.Result, error) {
	u, fail := checkFetchURL(env, a) // again: Run must not trust that Check ran
	if fail != nil {
		return fetchError(fail).Result(), nil
	}
	res, err := env.Limits.HTTP.Fetch(ctx, u, fetchMethod(a))
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return tools.Result{}, ctx.Err()
		}
		return fetchError(err).Result(), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "status: %s\ncontent-type: %s\nurl: %s\n", res.Status, res.ContentType, res.FinalURL)
	text := fetchText(res)
	cut := len(text) > httpMaxText
	if cut {
		text = strings.ToValidUTF8(text[:httpMaxText], "")
	}
	if text != "" {
		b.WriteString("\n" + text + "\n")
	}
	switch {
	case res.Truncated:
		fmt.Fprintf(&b, "\n[body truncated at %d bytes]", len(res.Body))
	case cut:
		fmt.Fprintf(&b, "\n[text truncated at %d characters]", httpMaxText)
	}
	return tools.Result{Content: strings.TrimRight(b.String(), "\n")}, nil
}

func fetchMethod(a *httpFetchArgs) string {
	if a.Method == "" {
		return "GET"
	}
	return a.Method
}

// fetchError maps a refusal or failure of a fetch to a tool error.
func fetchError(err error) *tools.ToolError {
	if pe, ok := errors.AsType[*sandbox.PolicyError](err); ok {
		return tools.PolicyRefusal(pe, "url")
	}
	e := &tools.ToolError{Code: tools.CodeUnavailable, Field: "url", Reason: "the request failed: " + netReason(err),
		Recovery: "check the URL; retry later if the server may be down", Rule: "http.failed"}
	if errors.Is(err, netguard.ErrTimeout) {
		e.Code, e.Reason, e.Recovery, e.Rule = tools.CodeTimeout, "the request timed out", "retry later, or fetch a smaller resource", "http.timeout"
	}
	return e
}

// netReason names a network failure without internal detail.
func netReason(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	switch {
	case errors.As(err, &dnsErr):
		return "the host name does not resolve"
	case errors.As(err, &certErr), errors.As(err, &unknownCA):
		return "the server's TLS certificate is not trusted"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	}
	return "network error"
}
