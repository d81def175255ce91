package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// ErrFetchTimeout is returned (wrapped) by [HTTPPolicy.Fetch] when the
// policy's Timeout or the context's deadline ended the exchange.
var ErrFetchTimeout = errors.New("the request timed out")

// FetchResult is what [HTTPPolicy.Fetch] got back.
type FetchResult struct {
	Status      string // e.g. "200 OK"
	StatusCode  int
	ContentType string // media type without parameters, sniffed when absent
	FinalURL    string // after redirects
	// Text is the body as readable text: HTML turned into text, other text
	// as is (made valid UTF-8), a one-line note for binary content.
	Text      string
	Bytes     int  // body bytes read, at most MaxBytes
	Truncated bool // the body was longer than MaxBytes and was cut
	Binary    bool
}

// Fetch checks rawURL and method with [HTTPPolicy.CheckURL], then makes
// the request with [HTTPPolicy.Client]. A refusal at any step — the URL, a
// resolved or dialled address, a redirect — is returned as the
// [*PolicyError] itself; a timeout wraps [ErrFetchTimeout]; a cancelled
// ctx returns ctx.Err(). HTTP error statuses are results, not errors.
func (p *HTTPPolicy) Fetch(ctx context.Context, rawURL, method string) (*FetchResult, error) {
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
		return nil, &PolicyError{Rule: RuleHTTPMalformed, Subject: u.String(), Reason: "the URL does not parse strictly"}
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
	res.Bytes = len(body)
	ct := resp.Header.Get("Content-Type")
	if ct == "" && len(body) > 0 {
		ct = http.DetectContentType(body)
	}
	res.ContentType, _, _ = mime.ParseMediaType(ct)
	size := int64(len(body))
	if resp.ContentLength > size {
		size = resp.ContentLength
	}
	res.Text, res.Binary = bodyText(body, res.ContentType, size, resp.Request.URL)
	return res, nil
}

// fetchErr unwraps what the client returned into the errors Fetch
// promises.
func fetchErr(ctx context.Context, err error) error {
	if pe, ok := errors.AsType[*PolicyError](err); ok {
		return pe
	}
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ctx.Err()
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %v", ErrFetchTimeout, err)
	}
	return err
}

// bodyText renders a body for the model by its media type mt.
func bodyText(body []byte, mt string, size int64, base *url.URL) (text string, binary bool) {
	switch {
	case len(body) == 0:
		return "", false
	case mt == "text/html" || mt == "application/xhtml+xml":
		return HTMLText(bytes.NewReader(body), base), false
	case isTextType(mt) && bytes.IndexByte(body, 0) < 0:
		if !utf8.Valid(body) {
			return strings.ToValidUTF8(string(body), "\uFFFD"), false
		}
		return string(body), false
	}
	if mt == "" {
		mt = "unknown type"
	}
	return fmt.Sprintf("binary content (%s, %d bytes)", mt, size), true
}

func isTextType(mt string) bool {
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-ndjson", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql":
		return true
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}
