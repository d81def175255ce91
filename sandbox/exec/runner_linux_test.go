package exec

import (
	"errors"
	"slices"
	"testing"
)

// TestRunner_OnLayerMissing: a runner tells its own OnLayerMissing about
// each missing layer once, in layer order, and a runner in a program
// whose main did not call MaybeRunHelper refuses to run anything.
func TestRunner_OnLayerMissing(t *testing.T) {
	helperHooked.Store(false)
	defer helperHooked.Store(true)
	var told []string
	r := New(&Options{OnLayerMissing: func(layer, why string) { told = append(told, layer) }})
	defer r.Close()
	if rep := r.Layers(); len(rep.Active) != 0 {
		t.Errorf("active layers without the helper: %v", rep.Active)
	}
	r.Layers()
	if !slices.Equal(told, layerOrder) {
		t.Errorf("told about %v; want each of %v once", told, layerOrder)
	}
	if _, err := r.Run(t.Context(), &Spec{Command: "true", Dir: execWorkspace(t)}); !errors.Is(err, ErrNoHelper) {
		t.Errorf("Run without the helper: %v; want ErrNoHelper", err)
	}
}

// TestRunner_CloseEndsWarmHelper: Close ends the prestarted helper and
// waits for it; the runner still runs commands afterwards, cold.
func TestRunner_CloseEndsWarmHelper(t *testing.T) {
	needSandboxLayers(t, LayerPIDNamespace)
	r := New(&Options{Prestart: true, Helper: testHelper})
	r.waitWarm()
	r.sys.warm.mu.Lock()
	w := r.sys.warm.slot
	r.sys.warm.mu.Unlock()
	if w == nil {
		t.Fatal("no warm helper after New with Prestart")
	}
	r.Close()
	select {
	case <-w.h.exited:
	default:
		t.Error("the warm helper is still running after Close")
	}
	used := r.sys.warm.used.Load()
	if res := runWith(t, r, &Spec{Command: "echo cold", Dir: execWorkspace(t)}); res.Stdout != "cold\n" {
		t.Errorf("after Close: %+v", res)
	}
	if r.sys.warm.used.Load() != used {
		t.Error("a command after Close ran in a warm helper")
	}
	r.Close() // twice is fine
}
