package netguard

import (
	"strings"
	"testing"
)

// adversarialPolicy has the example hosts plus a non-default port and
// path-prefix rules.
func adversarialPolicy() *Policy {
	return &Policy{Allow: []string{
		"https://api.github.com", "pkg.go.dev", "https://example.com:8443",
		"https://docs.example.org/api/*", "https://svc.example.net/v1", "https://XN--80AK6AA92E.com",
	}}
}

func TestCheckURL_B4_Adversarial(t *testing.T) {
	const (
		ok        = ""
		malformed = RuleMalformed
		scheme    = RuleScheme
		userinfo  = RuleUserinfo
		host      = RuleHost
		port      = RulePort
		path      = RulePath
		method    = RuleMethod
		notAllow  = RuleHostNotAllowed
		addr      = RuleAddr
	)
	cases := []struct {
		raw, method, want string
		norm              string // the normalized URL of an allowed case
	}{
		// Allowed, and normalized.
		{"https://api.github.com", "", ok, "https://api.github.com"},
		{"https://API.GitHub.COM/Repos", "GET", ok, "https://api.github.com/Repos"},
		{"HTTPS://api.github.com/", "HEAD", ok, "https://api.github.com/"},
		{"https://api.github.com:443/x?y=1#frag", "", ok, "https://api.github.com/x?y=1"},
		{"https://api.github.com/search?q=a@b.c", "", ok, "https://api.github.com/search?q=a@b.c"},
		{"https://api.github.com#@evil.com", "", ok, "https://api.github.com"},
		{"https://api.github.com?@evil.com", "", ok, "https://api.github.com?@evil.com"},
		{"https://pkg.go.dev/search?q=ü", "", ok, "https://pkg.go.dev/search?q=%C3%BC"},
		{"https://example.com:8443/x", "", ok, "https://example.com:8443/x"},
		{"https://docs.example.org/api/v1", "", ok, "https://docs.example.org/api/v1"},
		{"https://svc.example.net/v1/users", "", ok, "https://svc.example.net/v1/users"},
		{"https://svc.example.net/v1", "", ok, "https://svc.example.net/v1"},
		{"https://xn--80ak6aa92e.com/", "", ok, "https://xn--80ak6aa92e.com/"},
		// Userinfo, in every spelling.
		{"https://@api.github.com/", "", userinfo, ""},
		{"https://:@api.github.com/", "", userinfo, ""},
		{"https://user:pass@api.github.com/", "", userinfo, ""},
		{"https://api.github.com@evil.com/", "", userinfo, ""},
		{"https://api.github.com;@evil.com/", "", userinfo, ""},
		{"https://evil.com@api.github.com:443/", "", userinfo, ""},
		{"https://api.github.com%40evil.com/", "", host, ""},
		{"https://api.github.com\\@evil.com/", "", malformed, ""},
		// Ports.
		{"https://api.github.com:/", "", malformed, ""},
		{"https://api.github.com:8443/", "", port, ""},
		{"https://api.github.com:0443/", "", malformed, ""},
		{"https://api.github.com:80/", "", port, ""},
		{"https://api.github.com:65536/", "", malformed, ""},
		{"https://api.github.com:+443/", "", malformed, ""},
		{"https://api.github.com:443:443/", "", malformed, ""},
		{"https://api.github.com:4_43/", "", malformed, ""},
		{"https://example.com/", "", port, ""},
		// Schemes and shapes.
		{"http://api.github.com/", "", scheme, ""},
		{"gopher://127.0.0.1:6379/_INFO", "", scheme, ""},
		{"file:///etc/passwd", "", scheme, ""},
		{"javascript:alert(1)", "", scheme, ""},
		{"ws://api.github.com/", "", scheme, ""},
		{"https:api.github.com/", "", malformed, ""},
		{"https:/api.github.com/", "", malformed, ""},
		{"https:///api.github.com/", "", malformed, ""},
		{"//api.github.com/", "", malformed, ""},
		{"api.github.com/repos", "", malformed, ""},
		{"", "", malformed, ""},
		{"https://api.github.com /", "", malformed, ""},
		{"https://api.github.com/\r\nHost: evil", "", malformed, ""},
		{"https://api.github.com/\x00", "", malformed, ""},
		{"https://api.github.com/" + strings.Repeat("a", MaxURLLen), "", malformed, ""},
		{"https://api.github.com/\xff", "", malformed, ""},
		// Hosts: exact match only, ASCII only.
		{"https://github.com/", "", notAllow, ""},
		{"https://api.github.com.evil.com/", "", notAllow, ""},
		{"https://evilapi.github.com/", "", notAllow, ""},
		{"https://sub.api.github.com/", "", notAllow, ""},
		{"https://api.github.co/", "", notAllow, ""},
		{"https://api-github.com/", "", notAllow, ""},
		{"https://api.github.com./", "", host, ""},
		{"https://api..github.com/", "", host, ""},
		{"https://.api.github.com/", "", host, ""},
		{"https://api.github.com../", "", host, ""},
		{"https://аpi.github.com/", "", host, ""}, // Cyrillic а
		{"https://api。github。com/", "", host, ""},
		{"https://api．github．com/", "", host, ""},
		{"https://ａｐｉ.github.com/", "", host, ""},
		{"https://api.github.com%2f/", "", host, ""},
		{"https://api.git\u200bhub.com/", "", host, ""},
		{"https://xn--pi-7ld.github.com/", "", notAllow, ""}, // punycode lookalike
		{"https://" + strings.Repeat("a", 64) + ".com/", "", host, ""},
		{"https://a!b.com/", "", host, ""},
		// IP literals and encodings.
		{"https://2130706433/", "", host, ""},
		{"https://017700000001/", "", host, ""},
		{"https://0x7f000001/", "", host, ""},
		{"https://0x7f.1/", "", host, ""},
		{"https://0xa9fea9fe/", "", host, ""},
		{"https://0XA9FEA9FE/", "", host, ""},
		{"https://127.1/", "", host, ""},
		{"https://0177.0.0.1/", "", host, ""},
		{"https://127.000.000.001/", "", host, ""},
		{"https://1.2.3.4.5/", "", host, ""},
		{"https://api.github.123/", "", host, ""},
		{"https://127.0.0.1/", "", addr, ""},
		{"https://0.0.0.0/", "", addr, ""},
		{"https://169.254.169.254/latest/meta-data/", "", addr, ""},
		{"https://100.100.100.200/", "", addr, ""},
		{"https://1.2.3.4/", "", notAllow, ""},
		{"https://[::1]/", "", addr, ""},
		{"https://[::]/", "", addr, ""},
		{"https://[::ffff:127.0.0.1]/", "", addr, ""},
		{"https://[::ffff:7f00:1]/", "", addr, ""},
		{"https://[0:0:0:0:0:ffff:a9fe:a9fe]/", "", addr, ""},
		{"https://[::127.0.0.1]/", "", addr, ""},
		{"https://[64:ff9b::a9fe:a9fe]/", "", addr, ""},
		{"https://[64:ff9b:1::a00:1]/", "", addr, ""},
		{"https://[2002:7f00:1::]/", "", addr, ""},
		{"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "", addr, ""},
		{"https://[fd00:ec2::254]/", "", addr, ""},
		{"https://[fe80::1]/", "", addr, ""},
		{"https://[fe80::1%25eth0]/", "", host, ""},
		{"https://[2606:4700::1111]/", "", notAllow, ""},
		{"https://[::1/", "", malformed, ""},
		{"https://[zz]/", "", host, ""},
		{"https://[127.0.0.1]/", "", host, ""},
		{"https://[::1]x/", "", malformed, ""},
		// Paths.
		{"https://docs.example.org/", "", path, ""},
		{"https://docs.example.org/apix", "", path, ""},
		{"https://svc.example.net/v10", "", path, ""},
		{"https://svc.example.net/v1/../admin", "", path, ""},
		{"https://svc.example.net/v1/%2e%2E/admin", "", path, ""},
		{"https://svc.example.net/v1/./x", "", path, ""},
		{"https://docs.example.org/api/%2E./x", "", path, ""},
		{"https://docs.example.org/api/x%2F..%2F..%2Fadmin", "", path, ""},
		{"https://docs.example.org/api/x%5c..%5cadmin", "", path, ""},
		{"https://svc.example.net/v1/..;/admin", "", path, ""},
		{"https://svc.example.net/v1/%2e%2e;x=1/admin", "", path, ""},
		{"https://api.github.com/repos/a%2Fb", "", ok, "https://api.github.com/repos/a%2Fb"},
		// Methods.
		{"https://api.github.com/", "CONNECT", method, ""},
		{"https://api.github.com/", "TRACE", method, ""},
		{"https://api.github.com/", "POST", method, ""},
		{"https://api.github.com/", "DELETE", method, ""},
		{"https://api.github.com/", "get", method, ""},
	}
	p := adversarialPolicy()
	for _, c := range cases {
		u, err := p.CheckURL(c.raw, c.method)
		if c.want == ok {
			if err != nil {
				t.Errorf("CheckURL(%q, %q): %v; want allowed", c.raw, c.method, err)
			} else if u.String() != c.norm {
				t.Errorf("CheckURL(%q) = %s; want %s", c.raw, u, c.norm)
			}
			continue
		}
		if err == nil {
			t.Errorf("CheckURL(%q, %q) = %s; want %s", c.raw, c.method, u, c.want)
			continue
		}
		if pe := checkURLError(t, err, c.raw); pe.Rule != c.want {
			t.Errorf("CheckURL(%q, %q): rule %s (%s); want %s", c.raw, c.method, pe.Rule, pe.Reason, c.want)
		}
	}
}
