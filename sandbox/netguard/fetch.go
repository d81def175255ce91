package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"

	"github.com/agentls/agentls/sandbox"
)

// ErrTimeout is returned (wrapped) by [Policy.Fetch] when the
// policy's Timeout or the context's deadline ended the exchange.
var ErrTimeout = errors.New("the request timed out")

// FetchResult is what [Policy.Fetch] got back. Turning the body into
// text for a model is the caller's business.
type FetchResult struct {
	Status      string // e.g. "200 OK"
	StatusCode  int
	ContentType string // media type without parameters, sniffed when absent
	FinalURL    string // after redirects
	// Body is the response body, at most the policy's MaxBytes of it.
	Body      []byte
	Truncated bool // the body was longer than MaxBytes and was cut
	// Size is the body's size as far as it is known: the bytes read, or
	// the declared Content-Length when that is larger.
	Size int64
}

// Fetch checks rawURL and method with [Policy.CheckURL], then makes
// the request with [Policy.Client]. A refusal at any step — the URL, a
// resolved or dialled address, a redirect — is returned as the
// [*sandbox.PolicyError] itself; a timeout wraps [ErrTimeout]; a cancelled
// ctx returns ctx.Err(). HTTP error statuses are results, not errors.
func (p *Policy) Fetch(ctx context.Context, rawURL, method string) (*FetchResult, error) {
	if method == "" {
		method = http.MethodGet
	}
	u, err := p.CheckURL(rawURL, method)
	if err != nil {
		return nil, err
	}
	client := p.Client()
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, &sandbox.PolicyError{Rule: RuleMalformed, Subject: u.String(), Reason: "the URL does not parse strictly"}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchErr(ctx, err)
	}
	defer resp.Body.Close()
	limit := p.maxBytes()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fetchErr(ctx, err)
	}
	res := &FetchResult{Status: resp.Status, StatusCode: resp.StatusCode, FinalURL: resp.Request.URL.String()}
	if int64(len(body)) > limit {
		body, res.Truncated = body[:limit], true
	}
	res.Body = body
	ct := resp.Header.Get("Content-Type")
	if ct == "" && len(body) > 0 {
		ct = http.DetectContentType(body)
	}
	res.ContentType, _, _ = mime.ParseMediaType(ct)
	res.Size = max(int64(len(body)), resp.ContentLength)
	return res, nil
}

// fetchErr unwraps what the client returned into the errors Fetch
// promises.
func fetchErr(ctx context.Context, err error) error {
	if pe, ok := errors.AsType[*sandbox.PolicyError](err); ok {
		return pe
	}
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ctx.Err()
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	return err
}
