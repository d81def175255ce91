package tools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// slowApprover answers approve after a delay, or when ctx ends.
type slowApprover struct{ after time.Duration }

func (a slowApprover) Approve(ctx context.Context, _ *ApprovalRequest) (ApprovalResponse, error) {
	select {
	case <-time.After(a.after):
		return ApprovalResponse{Answer: AnswerApprove}, nil
	case <-ctx.Done():
		return ApprovalResponse{}, ctx.Err()
	}
}

// T15: the execution limit still ends a tool that runs too long, after a
// question, counting only the time it ran.
func TestRunner_T15_ExecutionLimitAfterQuestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ran time.Duration
		tool := &Tool{Name: "slow", Description: "x", Risk: RiskNone, Schema: json.RawMessage(`{"type":"object"}`),
			Run: func(ctx context.Context, env *Env, _ json.RawMessage) (Result, error) {
				resume := AwaitUser(ctx)
				time.Sleep(3 * time.Minute) // the user thinks
				resume()
				start := time.Now()
				<-ctx.Done()
				ran = time.Since(start)
				if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
					t.Errorf("ctx.Err() = %v, want DeadlineExceeded", ctx.Err())
				}
				return Result{}, ctx.Err()
			}}
		reg := NewRegistry()
		reg.MustRegister(tool)
		r := newGateway(reg, &Env{}, &gatewayConfig{Allowed: []string{"slow"}, Timeout: time.Minute})
		res, err := r.Call(t.Context(), "slow", `{}`)
		if err != nil || res.Code != CodeTimeout {
			t.Fatalf("got %+v %v, want a timeout result", res, err)
		}
		if ran != time.Minute {
			t.Errorf("the tool ran %v after the question, want the whole minute", ran)
		}
	})
}

// AwaitUser outside a gateway call does nothing, and pausing is nested:
// the clock stands until the last question ends.
func TestAwaitUser_T15_Nested(t *testing.T) {
	AwaitUser(context.Background())() // no call: a no-op
	synctest.Test(t, func(t *testing.T) {
		c, cancel := withExecLimit(context.Background(), time.Minute)
		defer cancel()
		r1 := AwaitUser(c)
		r2 := AwaitUser(c)
		time.Sleep(time.Hour)
		r1()
		r1() // twice is once
		time.Sleep(time.Hour)
		if c.Err() != nil {
			t.Fatalf("expired while a question was pending: %v", c.Err())
		}
		r2()
		time.Sleep(59 * time.Second)
		if c.Err() != nil {
			t.Fatalf("expired early: %v", c.Err())
		}
		time.Sleep(2 * time.Second)
		if !errors.Is(c.Err(), context.DeadlineExceeded) {
			t.Fatalf("Err = %v, want DeadlineExceeded", c.Err())
		}
		if w := c.waitedFor(); w != 2*time.Hour {
			t.Errorf("waited %v, want 2h", w)
		}
		child, cancelChild := context.WithTimeout(c, time.Hour)
		defer cancelChild()
		<-child.Done()
		if !errors.Is(child.Err(), context.DeadlineExceeded) {
			t.Errorf("a child of an expired call: %v, want DeadlineExceeded", child.Err())
		}
	})
}

// T15: a question inside a nested call (a sub-agent's tool call inside
// the agent tool) stops the outer call's clock too.
func TestAwaitUser_T15_NestedCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		outer, cancelOuter := withExecLimit(context.Background(), time.Minute)
		defer cancelOuter()
		inner, cancelInner := withExecLimit(outer, time.Minute)
		defer cancelInner()
		resume := AwaitUser(inner)
		time.Sleep(time.Hour)
		if outer.Err() != nil || inner.Err() != nil {
			t.Fatalf("a clock ran while the user was asked: outer %v, inner %v", outer.Err(), inner.Err())
		}
		resume()
		time.Sleep(time.Minute + time.Second)
		if !errors.Is(outer.Err(), context.DeadlineExceeded) {
			t.Errorf("outer: %v", outer.Err())
		}
	})
}

// T8, T15: a tool that runs processes gets the policy's command timeout
// (and a grace), not only the gateway's limit: a policy that gives
// commands 15 minutes has a 3-minute command finish; other tools still
// end at the gateway's limit.
func TestGateway_T15_CommandTimeoutOutlastsCallLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, risk := range []Risk{RiskExecute, RiskNone} {
			tool := &Tool{Name: "build", Description: "x", Risk: risk, Schema: json.RawMessage(`{"type":"object"}`),
				Run: func(ctx context.Context, env *Env, _ json.RawMessage) (Result, error) {
					select {
					case <-time.After(3 * time.Minute):
						return Result{Content: "built"}, nil
					case <-ctx.Done():
						return Result{}, ctx.Err()
					}
				}}
			reg := NewRegistry()
			reg.MustRegister(tool)
			env := &Env{Limits: Limits{CommandTimeout: 15 * time.Minute}}
			r := newGateway(reg, env, &gatewayConfig{Allowed: []string{"build"}, Timeout: 2 * time.Minute,
				Approver: slowApprover{}})
			res, err := r.Call(t.Context(), "build", `{}`)
			switch {
			case err != nil:
				t.Fatalf("%s: %v", risk, err)
			case risk == RiskExecute && res.Content != "built":
				t.Errorf("execute: %+v, want the command to finish", res)
			case risk == RiskNone && res.Code != CodeTimeout:
				t.Errorf("none: %+v, want the gateway's timeout", res)
			}
		}
	})
}
