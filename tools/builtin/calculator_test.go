package builtin

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

func TestCalculator_B5_Values(t *testing.T) {
	for expr, want := range map[string]string{
		"1 + 2":                 "3",
		"(2^10 - 24) / 8":       "125",
		"2 * 3^2":               "18",
		"2^3^2":                 "512",
		"(2^3)^2":               "64",
		"-2^2":                  "-4",
		"(-2)^2":                "4",
		"2^-1":                  "0.5",
		"2^-2^2":                "0.0625",
		"2^3 * 4":               "32",
		"1 + 2^3":               "9",
		"10 - 2 - 3":            "5",
		"100 / 10 / 5":          "2",
		"7 % 3":                 "1",
		"-7 % 3":                "-1",
		"7.5 % 2":               "1.5",
		"1 / 3":                 "0.333333333333333",
		"0.1 + 0.2":             "0.3",
		"2^0.5":                 "1.4142135623731",
		"3^40":                  "12157665459056928801",
		"2^64":                  "18446744073709551616",
		"2^100":                 "1.26765060022823e+30",
		"0x10 + 0b11 + 0o17":    "34",
		"1_000_000 * 3":         "3000000",
		"1e3 + .5":              "1000.5",
		"- - 3":                 "3",
		"+(4)":                  "4",
		"0":                     "0",
		"-0":                    "0",
		"0^0":                   "1",
		" ( ( 1 ) ) \n+ 1 ":     "2",
		"9007199254740993 + 0":  "9007199254740993",
		"1e308 * 1":             "1e+308",
		"2 * (3 + 4) * 5 - 6/3": "68",
	} {
		got, err := Calculate(expr)
		if err != nil || got != want {
			t.Errorf("Calculate(%q) = %q, %v; want %q", expr, got, err, want)
		}
	}
}

func TestCalculator_B5_Refused(t *testing.T) {
	for expr, want := range map[string]string{
		"pi * 2":      `the name "pi"`,
		"os":          `the name "os"`,
		"len(x)":      "function call",
		"a.b":         "attribute",
		"x[0]":        "index",
		"x[1:2]":      "slice",
		`"a" + "b"`:   "string",
		"'a'":         "character",
		"2i":          "not a real number",
		"[]int{1}":    "composite literal",
		"func() {}":   "function literal",
		"2**3":        "2^3",
		"1 << 3":      "operator <<",
		"1 & 3":       "operator &",
		"1 == 1":      "operator ==",
		"1 && 1":      "operator &&",
		"!1":          "unary operator !",
		"^1":          "unary operator ^",
		"<-c":         "unary operator <-",
		"1 / 0":       "division by zero",
		"1 % 0":       "division by zero",
		"1 / (2 - 2)": "division by zero",
		"0^-1":        "division by zero",
		"2^10001":     "exponent is too large",
		"2^1e6":       "exponent is too large",
		"10^400":      "too large",
		"1e309":       "too large",
		"1e-400":      "too small",
		"10^-400":     "too small",
		"(1e300)^2":   "too large",
		"(-8)^(1/3)":  "not a real number",
		"017":         "leading zero",
		"5--3":        "5 - -3",
		"1 +":         "not an arithmetic expression",
		"":            "not an arithmetic expression",
		"1; 2":        "not an arithmetic expression",
		"x.(int)":     "type assertion",
		strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150): "nesting deeper",
		strings.Repeat("- ", 150) + "1":                           "nesting deeper",
		strings.Repeat("1", 1001):                                 "longer than 1000",
	} {
		got, err := Calculate(expr)
		if err == nil {
			t.Errorf("Calculate(%q) = %q; want refused (%s)", expr, got, want)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("Calculate(%q): %v; want %q", expr, err, want)
		}
	}
}

// TestCalculator_B5_T3_T11_Gateway runs the tool through the gateway:
// allowed by its check, schema limits enforced, refusals structured with
// the field.
func TestCalculator_B5_T3_T11_Gateway(t *testing.T) {
	reg := tools.NewRegistry()
	reg.MustRegister(Calculator(), HTTPFetch())
	r := newGateway(reg, &tools.Env{}, &tools.GatewayOptions{Allowed: []string{"http_fetch", "calculator"}})
	callCalc := func(args string) tools.Result {
		t.Helper()
		res, err := r.Call(t.Context(), "calculator", args)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if got := wantOK(t, callCalc(`{"expression":"6 * 7"}`)); got != "42" {
		t.Errorf("6 * 7 = %q", got)
	}
	// T18, issue 22 item 9: vet says what the run does — refused.
	if v := r.Vet(t.Context(), "calculator", `{"expression":"os.Exit(1)"}`); v.Decision != tools.Deny || v.Code != tools.CodeInvalidArgs || v.Subject != "os.Exit(1)" {
		t.Errorf("vet: %+v; want deny (invalid_args) with the expression as subject", v)
	}
	if v := r.Vet(t.Context(), "calculator", `{"expression":"6 * 7"}`); v.Decision != tools.Allow {
		t.Errorf("vet of arithmetic: %+v", v)
	}
	te := wantErr(t, callCalc(`{"expression":"os.Exit(1)"}`), tools.CodeInvalidArgs, "expression")
	wantContains(t, te.Reason, "function call")
	wantContains(t, te.Recovery, "numbers")
	wantErr(t, callCalc(`{"expression":"1/0"}`), tools.CodeInvalidArgs, "expression")
	wantErr(t, callCalc(`{"expression":""}`), tools.CodeInvalidArgs, "expression")
	b, _ := json.Marshal(map[string]string{"expression": strings.Repeat("1+", 500) + "1"})
	wantErr(t, callCalc(string(b)), tools.CodeInvalidArgs, "expression")
	wantErr(t, callCalc(`{"expression":"1","precision":3}`), tools.CodeInvalidArgs, "*")
	wantErr(t, callCalc(`{"expression":12}`), tools.CodeInvalidArgs, "expression")
}

func FuzzCalculator(f *testing.F) {
	for _, s := range []string{"1+2*3", "2^3^2", "-2^-2", "(1e300)^2", "7%-3", "0x1p-2", "1/3", "pi", "2**3",
		"((((1))))", "1_0", "9e-309", "2^0.5", "-(-(-1))", "017", "1e999999999", "0^-1", "4 % 0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if len(expr) > 1000 {
			expr = expr[:1000]
		}
		v, err := Calculate(expr)
		v2, err2 := Calculate(expr)
		if v != v2 || (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("not deterministic: %q %v / %q %v", v, err, v2, err2)
		}
		if err == nil {
			if _, _, perr := big.ParseFloat(v, 10, 64, big.ToNearestEven); perr != nil {
				t.Fatalf("Calculate(%q) = %q, not a number", expr, v)
			}
		}
	})
}
