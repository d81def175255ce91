package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/big"
	"strings"

	"github.com/agentls/agentls/tools"
)

// calculator limits.
const (
	calcPrec     = 256   // bits of mantissa: integers up to ~77 digits are exact
	calcMaxDepth = 100   // nested parentheses and signs
	calcMaxExp   = 10000 // largest |exponent| of ^
)

// calcRecovery tells the model how to write an expression the calculator takes.
const calcRecovery = "use only numbers, + - * / % ^ and parentheses, e.g. (2^10 - 24) / 8"

// Calculator returns the calculator tool (B5). The expression is parsed
// with go/parser and its AST may hold only number literals, parentheses,
// unary + and -, and the binary operators + - * / % ^. Everything else —
// names (pi, os), calls, selectors, index and slice expressions, strings,
// characters, imaginary and legacy octal literals, composite literals,
// comparisons, bit operators — is refused as invalid_args naming what was
// found.
//
// ^ is power, because that is how people and models write it; Go would
// read it as XOR with the precedence of +. So the operator chain Go parsed
// is re-read in source order with the usual precedence: ^ binds tightest
// and right to left, then unary signs (-2^2 = -4, 2^-1 = 0.5), then * / %,
// then + -. % is the remainder with the sign of the dividend, as in Go
// and C. Numbers are exact binary floats of 256 bits; every intermediate
// result must stay within the float64 range, an exponent within ±10000,
// and a divisor non-zero.
func Calculator() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "calculator",
		Description: description("calculator"),
		Risk:        tools.RiskNone,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["expression"],
	"properties": {
		"expression": {"type": "string", "minLength": 1, "maxLength": 1000}
	}
}`),
	}, checkCalculator, runCalculator)
}

type calculatorArgs struct {
	Expression string `json:"expression"`
}

func runCalculator(_ context.Context, _ *tools.Env, a *calculatorArgs) (tools.Result, error) {
	v, err := Calculate(a.Expression)
	if err != nil {
		return tools.Fail(tools.CodeInvalidArgs, "expression", err.Error(), calcRecovery), nil
	}
	return tools.Result{Content: v}, nil
}

// calcItem is one element of an operator chain in source order: an
// operand value, or an operator (unary when it starts an operand).
type calcItem struct {
	val   *big.Float
	op    token.Token
	unary bool
}

// Calculate evaluates an arithmetic expression as described at
// [Calculator] and returns the result in decimal: exact digits for
// integers below 10^30, otherwise 15 significant digits.
func Calculate(expr string) (string, error) {
	if len(expr) > 1000 {
		return "", fmt.Errorf("expression longer than 1000 characters")
	}
	// A newline would end the expression early (Go inserts a semicolon).
	e, err := parser.ParseExpr(strings.NewReplacer("\n", " ", "\r", " ").Replace(expr))
	if err != nil {
		msg := err.Error()
		if strings.Contains(expr, "--") || strings.Contains(expr, "++") {
			msg += " (write 5 - -3, not 5--3)"
		}
		return "", fmt.Errorf("not an arithmetic expression: %s", msg)
	}
	v, err := calcExpr(e, 0)
	if err != nil {
		return "", err
	}
	if a := new(big.Float).Abs(v); v.IsInt() && a.Cmp(big.NewFloat(1e30)) < 0 {
		i, _ := v.Int(nil)
		return i.String(), nil
	}
	return v.Text('g', 15), nil
}

// calcExpr evaluates one (parenthesized or whole) expression.
func calcExpr(e ast.Expr, depth int) (*big.Float, error) {
	if depth > calcMaxDepth {
		return nil, fmt.Errorf("nesting deeper than %d", calcMaxDepth)
	}
	var items []calcItem
	if err := calcFlatten(e, &items, depth); err != nil {
		return nil, err
	}
	p := &calcParser{items: items}
	v, err := p.sum()
	if err == nil && p.pos != len(items) {
		err = fmt.Errorf("malformed expression")
	}
	return v, err
}

// calcFlatten appends the operator chain of e in source order; each
// parenthesized group becomes one value.
func calcFlatten(e ast.Expr, out *[]calcItem, depth int) error {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.XOR:
		default:
			return fmt.Errorf("the operator %s is not arithmetic; use + - * / %% ^", e.Op)
		}
		if err := calcFlatten(e.X, out, depth); err != nil {
			return err
		}
		*out = append(*out, calcItem{op: e.Op})
		return calcFlatten(e.Y, out, depth)
	case *ast.UnaryExpr:
		if e.Op != token.ADD && e.Op != token.SUB {
			return fmt.Errorf("the unary operator %s is not arithmetic", e.Op)
		}
		if depth++; depth > calcMaxDepth {
			return fmt.Errorf("nesting deeper than %d", calcMaxDepth)
		}
		*out = append(*out, calcItem{op: e.Op, unary: true})
		return calcFlatten(e.X, out, depth)
	case *ast.ParenExpr:
		v, err := calcExpr(e.X, depth+1)
		if err != nil {
			return err
		}
		*out = append(*out, calcItem{val: v})
		return nil
	case *ast.BasicLit:
		v, err := calcLiteral(e)
		if err != nil {
			return err
		}
		*out = append(*out, calcItem{val: v})
		return nil
	}
	return fmt.Errorf("%s is not allowed: only numbers and arithmetic operators", calcDescribe(e))
}

// calcRefused names the refused AST nodes for the model, by Go type.
var calcRefused = map[string]string{
	"*ast.Ident": "a name", "*ast.CallExpr": "a function call", "*ast.SelectorExpr": "an attribute (a.b)",
	"*ast.IndexExpr": "an index expression", "*ast.IndexListExpr": "an index expression",
	"*ast.SliceExpr": "a slice expression", "*ast.CompositeLit": "a composite literal",
	"*ast.FuncLit": "a function literal", "*ast.TypeAssertExpr": "a type assertion",
	"*ast.StarExpr": "'*' as a prefix (for powers write 2^3, not 2**3)",
}

// calcDescribe names a refused AST node for the model.
func calcDescribe(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return fmt.Sprintf("the name %q", id.Name)
	}
	if d, ok := calcRefused[fmt.Sprintf("%T", e)]; ok {
		return d
	}
	return "this construct"
}

// calcLiteral converts an INT or FLOAT literal. Legacy octal (017) is
// refused: Go reads it as 15, a person as 17.
func calcLiteral(l *ast.BasicLit) (*big.Float, error) {
	s := l.Value
	switch l.Kind {
	case token.INT, token.FLOAT:
	case token.STRING:
		return nil, fmt.Errorf("a string is not allowed: only numbers and arithmetic operators")
	case token.CHAR:
		return nil, fmt.Errorf("a character literal is not allowed: only numbers and arithmetic operators")
	default:
		return nil, fmt.Errorf("the literal %s is not a real number", s)
	}
	if l.Kind == token.INT && len(s) > 1 && s[0] == '0' && strings.IndexByte("xXbBoO", s[1]) < 0 {
		return nil, fmt.Errorf("the number %s has a leading zero; write it without (or 0o%s for octal)", s, strings.TrimLeft(s, "0_"))
	}
	v, _, err := big.ParseFloat(s, 0, calcPrec, big.ToNearestEven)
	if err != nil {
		return nil, fmt.Errorf("the number %s is out of range", s)
	}
	if v.Sign() == 0 && calcNonZero(s) { // underflowed even big.Float
		return nil, fmt.Errorf("the number %s is too small (closer to 0 than 1e-308)", s)
	}
	return v, calcRange(v)
}

// calcNonZero reports whether a literal's mantissa has a non-zero digit.
func calcNonZero(s string) bool {
	if len(s) > 1 && (s[1] == 'x' || s[1] == 'X') {
		m, _, _ := strings.Cut(strings.ToLower(s[2:]), "p")
		return strings.ContainsAny(m, "123456789abcdef")
	}
	m, _, _ := strings.Cut(strings.ToLower(s), "e")
	return strings.ContainsAny(m, "123456789")
}

// calcRange refuses values outside the float64 range.
func calcRange(v *big.Float) error {
	f, _ := v.Float64()
	switch {
	case v.IsInf() || math.IsInf(f, 0):
		return fmt.Errorf("the result is too large (beyond ±1.8e308)")
	case f == 0 && v.Sign() != 0:
		return fmt.Errorf("the result is too small (closer to 0 than 1e-308)")
	}
	return nil
}

// calcParser evaluates an operator chain by precedence climbing:
// sum = product {(+|-) product}; product = signed {(*|/|%) signed};
// signed = (+|-) signed | power; power = value [^ signed].
type calcParser struct {
	items []calcItem
	pos   int
}

func (p *calcParser) peek(unary bool, ops ...token.Token) (token.Token, bool) {
	if p.pos < len(p.items) && p.items[p.pos].val == nil && p.items[p.pos].unary == unary {
		for _, op := range ops {
			if p.items[p.pos].op == op {
				p.pos++
				return op, true
			}
		}
	}
	return 0, false
}

func (p *calcParser) sum() (*big.Float, error) { return p.binary(p.product, token.ADD, token.SUB) }

func (p *calcParser) product() (*big.Float, error) {
	return p.binary(p.signed, token.MUL, token.QUO, token.REM)
}

func (p *calcParser) binary(next func() (*big.Float, error), ops ...token.Token) (*big.Float, error) {
	x, err := next()
	for err == nil {
		op, ok := p.peek(false, ops...)
		if !ok {
			break
		}
		var y *big.Float
		if y, err = next(); err == nil {
			x, err = calcApply(op, x, y)
		}
	}
	return x, err
}

func (p *calcParser) signed() (*big.Float, error) {
	op, ok := p.peek(true, token.ADD, token.SUB)
	if !ok {
		return p.power()
	}
	x, err := p.signed()
	if err == nil && op == token.SUB {
		x.Neg(x)
	}
	return x, err
}

func (p *calcParser) power() (*big.Float, error) {
	if p.pos >= len(p.items) || p.items[p.pos].val == nil {
		return nil, fmt.Errorf("malformed expression")
	}
	x := new(big.Float).Copy(p.items[p.pos].val)
	p.pos++
	if _, ok := p.peek(false, token.XOR); !ok {
		return x, nil
	}
	y, err := p.signed()
	if err != nil {
		return nil, err
	}
	return calcApply(token.XOR, x, y)
}

// calcApply computes x op y and checks the result's range.
func calcApply(op token.Token, x, y *big.Float) (*big.Float, error) {
	z := new(big.Float).SetPrec(calcPrec)
	switch op {
	case token.ADD:
		z.Add(x, y)
	case token.SUB:
		z.Sub(x, y)
	case token.MUL:
		z.Mul(x, y)
	case token.QUO, token.REM:
		if y.Sign() == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		if op == token.QUO {
			z.Quo(x, y)
		} else if x.IsInt() && y.IsInt() {
			xi, _ := x.Int(nil)
			yi, _ := y.Int(nil)
			z.SetInt(xi.Rem(xi, yi))
		} else {
			xf, _ := x.Float64()
			yf, _ := y.Float64()
			z.SetFloat64(math.Mod(xf, yf))
		}
	case token.XOR:
		return calcPow(x, y)
	}
	return z, calcRange(z)
}

// calcPow computes x^y: exactly by squaring for an integer y, through
// float64 otherwise.
func calcPow(x, y *big.Float) (*big.Float, error) {
	if a := new(big.Float).Abs(y); a.Cmp(big.NewFloat(calcMaxExp)) > 0 {
		return nil, fmt.Errorf("the exponent is too large (at most %d in absolute value)", calcMaxExp)
	}
	if !y.IsInt() {
		xf, _ := x.Float64()
		yf, _ := y.Float64()
		if xf < 0 {
			return nil, fmt.Errorf("a negative number to a fractional power is not a real number")
		}
		r := math.Pow(xf, yf)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return nil, fmt.Errorf("the result is too large (beyond ±1.8e308)")
		}
		return new(big.Float).SetPrec(calcPrec).SetFloat64(r), nil
	}
	n, _ := y.Int64()
	if x.Sign() == 0 && n < 0 {
		return nil, fmt.Errorf("division by zero (0 to a negative power)")
	}
	z := new(big.Float).SetPrec(calcPrec).SetInt64(1)
	b := new(big.Float).SetPrec(calcPrec).Copy(x)
	for e := max(n, -n); e > 0; e >>= 1 {
		if e&1 == 1 {
			z.Mul(z, b)
		}
		b.Mul(b, b)
	}
	if n < 0 {
		z.Quo(new(big.Float).SetInt64(1), z)
	}
	return z, calcRange(z)
}
