// Package netguard is the network policy of http_fetch (B4): [Policy]
// checks a URL and method statically ([Policy.CheckURL]), refuses
// addresses that are not public unicast ones ([CheckAddr]), and builds an
// HTTP client that enforces the same checks at run time: on every
// resolved and dialled address (in net.Dialer.ControlContext, so DNS
// rebinding cannot slip through) and on every redirect. [Policy.Fetch]
// makes one bounded request with that client.
//
// Refusals are [*sandbox.PolicyError] values with the Rule* names of this
// package. It returns bodies as bytes: turning them into text for a model
// is the tools package's business. It must not read configuration itself,
// send credentials other than the configured per-origin headers, use a
// proxy from the environment, or import agentls packages other than the
// sandbox root.
package netguard
