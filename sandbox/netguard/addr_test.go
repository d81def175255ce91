package netguard

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

func TestCheckAddr_B4(t *testing.T) {
	refused := []string{
		// IPv4 special purpose.
		"0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.254",
		"100.100.100.200", "127.0.0.1", "127.255.255.254", "169.254.0.1", "169.254.169.254",
		"172.16.0.1", "172.31.255.255", "192.0.0.1", "192.0.0.192", "192.0.2.1", "192.88.99.1",
		"192.168.1.1", "198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9",
		"224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255", "168.63.129.16",
		// IPv6 special purpose.
		"::", "::1", "fe80::1", "febf::1", "fec0::1", "fc00::1", "fd00:ec2::254", "fdff::1",
		"ff02::1", "ff05::1:3", "100::1", "2001:db8::1", "3fff::1", "5f00::1", "4000::1", "::2",
		"2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:2::1", "2001:10::1",
		// Embedded IPv4 forms of refused addresses.
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0",
		"::127.0.0.1", "::8.8.8.8", "::ffff:0:8.8.8.8",
		"64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::10.0.0.1", "64:ff9b:1::8.8.8.8",
		"64:ff9b:1:ffff::1", "2002:7f00:1::", "2002:a9fe:a9fe::", "2002:0a00:0001::1",
		"2002:c0a8:0101::",
	}
	for _, s := range refused {
		a := netip.MustParseAddr(s)
		err := CheckAddr(a, nil)
		if err == nil {
			t.Errorf("CheckAddr(%s) = nil; want refused", s)
			continue
		}
		pe, ok := errors.AsType[*sandbox.PolicyError](err)
		if !ok || pe.Rule != RuleAddr || pe.Reason == "" {
			t.Errorf("CheckAddr(%s): bad error %v", s, err)
		}
	}
	allowed := []string{
		"8.8.8.8", "1.1.1.1", "140.82.121.6", "100.63.255.255", "100.128.0.1", "172.32.0.1",
		"192.169.0.1", "169.253.255.255", "223.255.255.255", "2606:4700::1111",
		"2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1",
		"2001:4860:4860::8888",
	}
	for _, s := range allowed {
		if err := CheckAddr(netip.MustParseAddr(s), nil); err != nil {
			t.Errorf("CheckAddr(%s) = %v; want nil", s, err)
		}
	}
	if CheckAddr(netip.Addr{}, nil) == nil {
		t.Error("the zero Addr is allowed")
	}
	if CheckAddr(netip.MustParseAddr("2606:4700::1111%eth0"), nil) == nil {
		t.Error("a zoned address is allowed")
	}
}

func TestCheckAddr_B4_AllowedPrefixes(t *testing.T) {
	allow := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.1.0.0/16"),
		netip.MustParsePrefix("fd12::/16"), {}}
	for s, ok := range map[string]bool{
		"127.0.0.1": true, "::ffff:127.0.0.1": true, "127.0.0.2": false, "::1": false,
		"10.1.2.3": true, "10.2.0.1": false, "fd12::5": true, "fd13::5": false,
		// Embedded forms that a gateway would reach are judged without the
		// allowances.
		"64:ff9b::7f00:1": false, "2002:7f00:1::": false,
	} {
		if err := CheckAddr(netip.MustParseAddr(s), allow); (err == nil) != ok {
			t.Errorf("CheckAddr(%s, allow) = %v; want allowed %v", s, err, ok)
		}
	}
}

func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::1.2.3.4", "2002:a9fe:a9fe::", "8.8.8.8", "2606:4700::1"} {
		a := netip.MustParseAddr(s).As16()
		f.Add(a[:], uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, bits uint8) {
		var a16 [16]byte
		copy(a16[:], b)
		addr := netip.AddrFrom16(a16)
		if len(b) == 4 {
			addr = netip.AddrFrom4([4]byte(b))
		}
		err := CheckAddr(addr, nil)
		if (CheckAddr(addr, nil) == nil) != (err == nil) {
			t.Fatal("not deterministic")
		}
		// An address is judged like its unmapped form.
		if addr.Is4In6() && (err == nil) != (CheckAddr(addr.Unmap(), nil) == nil) {
			t.Fatalf("%s and its unmapped form disagree", addr)
		}
		if err == nil && (addr.IsLoopback() || addr.IsPrivate() || addr.IsUnspecified() || addr.IsMulticast() ||
			addr.IsLinkLocalUnicast() || addr.Unmap().IsLoopback() || addr.Unmap().IsPrivate()) {
			t.Fatalf("%s allowed", addr)
		}
		// Allowing a prefix around the address allows it, and nothing
		// outside the prefix changes.
		if p, err2 := addr.Prefix(int(bits) % (addr.BitLen() + 1)); err2 == nil {
			if CheckAddr(addr, []netip.Prefix{p}) != nil {
				t.Fatalf("%s refused inside allowed %s", addr, p)
			}
		}
	})
}

func BenchmarkCheckAddr(b *testing.B) {
	addrs := []netip.Addr{netip.MustParseAddr("140.82.121.6"), netip.MustParseAddr("2606:4700::1111"),
		netip.MustParseAddr("::ffff:169.254.169.254"), netip.MustParseAddr("64:ff9b::8.8.8.8")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = CheckAddr(addrs[i%len(addrs)], nil)
	}
}
