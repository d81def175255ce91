package netguard

import (
	"net/netip"

	"github.com/agentls/agentls/sandbox"
)

// RuleAddr is the [sandbox.PolicyError.Rule] of an address that [CheckAddr]
// refuses: not a public unicast address, and not explicitly allowed.
const RuleAddr = "http.addr"

// blockedPrefix is a range [CheckAddr] refuses, with the reason it gives.
type blockedPrefix struct {
	p      netip.Prefix
	reason string
}

func bp(s, reason string) blockedPrefix { return blockedPrefix{netip.MustParsePrefix(s), reason} }

// Non-public IPv4 ranges: the IANA special-purpose registry (RFC 6890 and
// updates), plus addresses cloud platforms use for metadata services.
var blocked4 = []blockedPrefix{
	bp("0.0.0.0/8", "\"this network\" address (reaches local services)"),
	bp("10.0.0.0/8", "private address"),
	bp("100.64.0.0/10", "shared address space (CGNAT, cloud metadata)"),
	bp("127.0.0.0/8", "loopback address"),
	bp("169.254.0.0/16", "link-local address (cloud metadata)"),
	bp("172.16.0.0/12", "private address"),
	bp("192.0.0.0/24", "IETF protocol assignment (cloud metadata)"),
	bp("192.0.2.0/24", "documentation address"),
	bp("192.31.196.0/24", "reserved address (AS112)"),
	bp("192.52.193.0/24", "reserved address (AMT)"),
	bp("192.88.99.0/24", "reserved address (6to4 relay)"),
	bp("192.168.0.0/16", "private address"),
	bp("192.175.48.0/24", "reserved address (AS112)"),
	bp("198.18.0.0/15", "benchmarking address"),
	bp("198.51.100.0/24", "documentation address"),
	bp("203.0.113.0/24", "documentation address"),
	bp("224.0.0.0/4", "multicast address"),
	bp("240.0.0.0/4", "reserved or broadcast address"),
	bp("168.63.129.16/32", "cloud platform address (Azure wire server)"),
}

// Non-public IPv6 ranges inside 2000::/3, the only block of global
// unicast; everything outside it is refused anyway (see [CheckAddr]).
var blocked6 = []blockedPrefix{
	bp("2001::/23", "IETF protocol assignment (Teredo, benchmarking, ORCHID)"),
	bp("2001:db8::/32", "documentation address"),
	bp("3fff::/20", "documentation address"),
}

var (
	global6    = netip.MustParsePrefix("2000::/3")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	compat4    = netip.MustParsePrefix("::/96")
	mapped4    = netip.MustParsePrefix("::ffff:0:0/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
)

// CheckAddr reports whether a connection to addr may be made: it refuses
// with a [*sandbox.PolicyError] (Rule [RuleAddr]) every address that is not a
// public unicast address, unless addr lies in one of the allowed prefixes.
//
// Refused: unspecified, loopback, private (RFC 1918, fc00::/7), link-local
// (169.254/16, fe80::/10), shared 100.64/10, 0.0.0.0/8, multicast,
// broadcast and reserved ranges, documentation and benchmarking ranges,
// cloud metadata addresses (169.254.169.254, fd00:ec2::254,
// 100.100.100.200, 168.63.129.16), zoned addresses, and every IPv6
// address outside 2000::/3. Addresses that embed an IPv4 address are
// judged by it: IPv4-mapped (::ffff:a.b.c.d), NAT64 64:ff9b::/96 and 6to4
// 2002::/16; IPv4-compatible ::/96, the local-use NAT64 64:ff9b:1::/48 and
// Teredo 2001::/32 are refused outright.
func CheckAddr(addr netip.Addr, allowed []netip.Prefix) error {
	reason := addrRefusal(addr, allowed, 0)
	if reason == "" {
		return nil
	}
	subject := "invalid address"
	if addr.IsValid() {
		subject = addr.String()
	}
	return &sandbox.PolicyError{Rule: RuleAddr, Subject: subject, Reason: reason}
}

// addrRefusal returns why addr is refused, or "" when it may be dialled.
func addrRefusal(addr netip.Addr, allowed []netip.Prefix, depth int) string {
	if !addr.IsValid() {
		return "invalid address"
	}
	if addr.Zone() != "" {
		return "address with a zone"
	}
	for _, p := range allowed {
		if p.IsValid() && (p.Contains(addr) || addr.Is4In6() && p.Contains(addr.Unmap())) {
			return ""
		}
	}
	if depth > 2 { // an embedded address that embeds another one
		return "nested embedded address"
	}
	if addr.Is4() {
		for _, b := range blocked4 {
			if b.p.Contains(addr) {
				return b.reason
			}
		}
		return ""
	}
	a16 := addr.As16()
	switch {
	case mapped4.Contains(addr):
		return addrRefusal(addr.Unmap(), allowed, depth+1)
	case addr.IsUnspecified():
		return "unspecified address"
	case addr.IsLoopback():
		return "loopback address"
	case compat4.Contains(addr):
		return "IPv4-compatible IPv6 address (deprecated)"
	case nat64.Contains(addr):
		// The gateway connects to the embedded address, not to an allowed
		// prefix of ours: judge it without the allowances.
		return addrRefusal(netip.AddrFrom4([4]byte(a16[12:16])), nil, depth+1)
	case nat64Local.Contains(addr):
		return "local-use NAT64 address"
	case sixToFour.Contains(addr):
		return addrRefusal(netip.AddrFrom4([4]byte(a16[2:6])), nil, depth+1)
	case addr.IsMulticast():
		return "multicast address"
	case addr.IsLinkLocalUnicast():
		return "link-local address"
	case addr.IsPrivate():
		return "private address (unique local, cloud metadata)"
	case !global6.Contains(addr):
		return "reserved IPv6 address (not global unicast)"
	}
	for _, b := range blocked6 {
		if b.p.Contains(addr) {
			return b.reason
		}
	}
	return ""
}
