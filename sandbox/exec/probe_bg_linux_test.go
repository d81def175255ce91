package exec

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

// slowProbe returns a beforeProbe hook that holds the probe until
// release is closed, and a channel closed once the probe has begun.
func slowProbe() (hook func(), begun, release chan struct{}) {
	begun, release = make(chan struct{}), make(chan struct{})
	return func() { close(begun); <-release }, begun, release
}

// TestRunner_I16_NewDoesNotWaitForProbe: with Prestart, New returns while
// the probe is still running (so the server's initialize reply and the
// first model request never wait for it); Layers and the first Run wait
// for it and then work; Close leaves no goroutine behind.
func TestRunner_I16_NewDoesNotWaitForProbe(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	hook, begun, release := slowProbe()
	returned := make(chan *Runner)
	go func() { returned <- New(&Options{Prestart: true, Helper: testHelper, beforeProbe: hook}) }()
	var r *Runner
	select {
	case r = <-returned:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("New waits for the probe")
	}
	defer r.Close()
	<-begun // the probe runs, in the background

	layers := make(chan LayerReport, 1)
	go func() { layers <- r.Layers() }()
	ran := make(chan *Result, 1)
	go func() {
		res, err := r.Run(t.Context(), &Spec{Command: "echo first", Dir: execWorkspace(t)})
		if err != nil {
			t.Error(err)
		}
		ran <- res
	}()
	select {
	case <-layers:
		t.Fatal("Layers returned before the probe ended")
	case <-ran:
		t.Fatal("Run returned before the probe ended")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if rep := <-layers; !rep.Has(LayerPIDNamespace) {
		t.Errorf("layers after the probe: %v", rep.Active)
	}
	if res := <-ran; res == nil || res.Stdout != "first\n" {
		t.Errorf("the first command: %+v", res)
	}
}

// TestRunner_I16_CloseWaitsForProbe: Close during the background probe
// waits for it, and the probe then starts no warm helper.
func TestRunner_I16_CloseWaitsForProbe(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	hook, begun, release := slowProbe()
	r := New(&Options{Prestart: true, Helper: testHelper, beforeProbe: hook})
	<-begun
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while the probe was running")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	<-closed
	r.sys.warm.mu.Lock()
	slot, on, filling := r.sys.warm.slot, r.sys.warm.on, r.sys.warm.filling
	r.sys.warm.mu.Unlock()
	if slot != nil || on || filling {
		t.Errorf("after Close: warm helper %v, prestart on %v, filling %v", slot != nil, on, filling)
	}
	mustRun(t, r) // cold, still sandboxed
}
