package netguard

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/agentls/agentls/sandbox"
)

// RuleRedirect is the [sandbox.PolicyError.Rule] of a redirect chain that is
// too long. A redirect to a refused URL fails with that URL's rule.
const RuleRedirect = "http.redirect"

// MaxRedirects is how many redirects a fetch follows.
const MaxRedirects = 5

// Client returns an HTTP client that enforces the policy at run time, as
// a second layer behind [Policy.CheckURL]:
//
//   - names resolve through Resolve pins when present, else the system
//     resolver; when any answer fails [CheckAddr], the whole answer is
//     refused (a name that mixes public and private answers is hostile);
//   - every address actually dialled is checked again with [CheckAddr] in
//     [net.Dialer.ControlContext], just before connect(2), so DNS
//     rebinding between check and dial cannot reach a refused address;
//   - each redirect target is checked with CheckURL, at most
//     [MaxRedirects] of them;
//   - no proxy from the environment; the configured Headers are added per
//     origin; the Referer header is never sent;
//   - the whole exchange, body included, is bounded by Timeout.
//
// Callers should call CloseIdleConnections when done with the client.
func (p *Policy) Client() *http.Client {
	timeout := p.timeout()
	d := &net.Dialer{Timeout: min(timeout, 10*time.Second), ControlContext: p.control}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return p.dial(ctx, d, network, addr)
	}
	tr := &http.Transport{
		Proxy:                  nil, // never from the environment
		DialContext:            dial,
		TLSClientConfig:        &tls.Config{RootCAs: p.rootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    min(timeout, 10*time.Second),
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 64 << 10,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	return &http.Client{
		Transport:     &headerTransport{p: p, rt: tr},
		CheckRedirect: p.checkRedirect,
		Timeout:       timeout,
	}
}

func (p *Policy) timeout() time.Duration {
	if p.Timeout > 0 {
		return p.Timeout
	}
	return 30 * time.Second
}

func (p *Policy) maxBytes() int64 {
	if p.MaxBytes > 0 {
		return p.MaxBytes
	}
	return 2 << 20
}

func (p *Policy) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return &sandbox.PolicyError{Rule: RuleRedirect, Subject: redactURL(req.URL.String()), Reason: "too many redirects"}
	}
	_, err := p.CheckURL(req.URL.String(), req.Method)
	return err
}

// dial connects to one of the checked addresses of address ("host:port").
func (p *Policy) dial(ctx context.Context, d *net.Dialer, network, address string) (net.Conn, error) {
	addrs, err := p.resolve(ctx, address)
	if err != nil {
		return nil, err
	}
	var first error
	for _, ap := range addrs {
		if p.rebind != nil {
			ap = p.rebind(ap)
		}
		c, err := d.DialContext(ctx, network, ap.String())
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// resolve returns the addresses of address ("host:port"), refusing them
// all when one of them fails [CheckAddr]. It does I/O only when the host
// is a name without Resolve pins.
func (p *Policy) resolve(ctx context.Context, address string) ([]netip.AddrPort, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &sandbox.PolicyError{Rule: RuleMalformed, Subject: address, Reason: "bad address"}
	}
	port := uint16(atoi(portStr))
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if pins, ok := p.pins(host, portStr); ok {
		for _, s := range pins {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, &sandbox.PolicyError{Rule: RuleAddr, Subject: host, Reason: "a pinned address does not parse"}
			}
			addrs = append(addrs, a)
		}
	} else if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	out := make([]netip.AddrPort, 0, len(addrs))
	for _, a := range addrs {
		if err := CheckAddr(a, p.AllowAddrs); err != nil {
			pe := err.(*sandbox.PolicyError)
			pe.Subject = host + " → " + pe.Subject
			pe.Reason = "the host resolves to a refused address: " + pe.Reason
			return nil, pe
		}
		out = append(out, netip.AddrPortFrom(a, port))
	}
	return out, nil
}

// pins returns the Resolve entry of host and port, compared
// case-insensitively.
func (p *Policy) pins(host, port string) ([]string, bool) {
	for k, v := range p.Resolve {
		kh, kp, err := net.SplitHostPort(k)
		if err == nil && kp == port && strings.EqualFold(kh, host) {
			return v, true
		}
	}
	return nil, false
}

// control is the last check before connect(2): the address the socket is
// about to reach, whatever resolved it.
func (p *Policy) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return &sandbox.PolicyError{Rule: RuleAddr, Subject: address, Reason: "only TCP connections are allowed"}
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &sandbox.PolicyError{Rule: RuleAddr, Subject: address, Reason: "bad address"}
	}
	return CheckAddr(ap.Addr(), p.AllowAddrs)
}

// headerTransport adds the configured headers of the request's origin.
type headerTransport struct {
	p  *Policy
	rt *http.Transport
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not modify its request
	req.Header.Del("Referer")
	req.Header.Set("User-Agent", "agentls")
	for k, v := range t.p.headersFor(req.URL.Scheme, req.URL.Hostname(), req.URL.Port()) {
		req.Header.Set(k, v)
	}
	return t.rt.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the transport.
func (t *headerTransport) CloseIdleConnections() { t.rt.CloseIdleConnections() }

// headersFor returns the Headers entry of an origin.
func (p *Policy) headersFor(scheme, host, port string) map[string]string {
	if port == "" {
		port = defaultPort(scheme)
	}
	for origin, h := range p.Headers {
		s, oh, op, _ := splitRule(origin)
		oh = strings.TrimSuffix(strings.TrimPrefix(oh, "["), "]")
		if s == strings.ToLower(scheme) && op == port && strings.EqualFold(oh, host) {
			return h
		}
	}
	return nil
}
