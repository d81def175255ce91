package lspserver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/tools"
)

// policyState keeps the last policy that loaded, so that a broken edit of
// a policy file keeps the previous good policy, and says so, instead of
// failing every run (E10). With no good policy yet, a broken file still
// fails the run: dropping its denies would fail open.
type policyState struct {
	mu       sync.Mutex // guards good and reported
	good     *tools.Policy
	reported string // the load error last shown to the user; "" when none
	kick     chan struct{}
}

// policyDebounce lets an editor finish writing a policy file (truncate,
// write, rename) before it is read.
const policyDebounce = 150 * time.Millisecond

// loadPolicy loads the policy files. A policy that loads becomes the last
// good one. On an error it returns the last good policy with kept set, or
// the error when there is none. Without [Options.LoadPolicy] it is the
// built-in editor policy.
func (s *Server) loadPolicy() (policy *tools.Policy, kept bool, err error) {
	if s.opts.LoadPolicy == nil {
		return tools.DefaultPolicy(tools.ProfileEditor), false, nil
	}
	p, err := s.opts.LoadPolicy(s.root)
	s.policy.mu.Lock()
	defer s.policy.mu.Unlock()
	if err == nil {
		s.policy.good = p
		return p, false, nil
	}
	if s.policy.good == nil {
		return nil, false, err
	}
	return s.policy.good, true, err
}

// reloadPolicy loads the policy after a policy file changed and tells the
// user when it broke or loads again.
func (s *Server) reloadPolicy(ctx context.Context) {
	_, kept, err := s.loadPolicy()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	s.policy.mu.Lock()
	was := s.policy.reported
	s.policy.reported = msg
	s.policy.mu.Unlock()
	switch {
	case msg == was:
	case err == nil:
		s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: the policy loads again; the next run uses it")
	case kept:
		s.log.Warn("Policy broken; keeping the last good one", slog.String("err", msg))
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: the policy does not load ("+msg+"); runs keep the previous good policy until it is fixed")
	default:
		s.log.Warn("Policy broken", slog.String("err", msg))
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: the policy does not load ("+msg+"); runs fail until it is fixed")
	}
}

// policyChanged schedules a reload; reloads are debounced.
func (s *Server) policyChanged() {
	select {
	case s.policy.kick <- struct{}{}:
	default: // one is pending already
	}
}

// reloadPolicies serves policyChanged until the connection ends: the first
// load at initialized, then one load per burst of changes.
func (s *Server) reloadPolicies() {
	s.reloadPolicy(s.connCtx)
	for {
		select {
		case <-s.connCtx.Done():
			return
		case <-s.policy.kick:
		}
		select {
		case <-s.connCtx.Done():
			return
		case <-time.After(policyDebounce):
		}
		select {
		case <-s.policy.kick: // changes during the wait are covered by this load
		default:
		}
		s.reloadPolicy(s.connCtx)
	}
}
