package bench

import (
	"errors"
	"fmt"

	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
)

// checkSizes refuses, before anything runs, a size whose buffers exceed the limits of the
// device b (estimate.CheckDevice) instead of failing in its first step.
func checkSizes(b gpu.Backend, sizes []int, m estimate.Model) error {
	for _, s := range sizes {
		if err := estimate.CheckDevice(m, estimate.Request{Req: engine.Request{Settings: engine.Settings{Width: s, Height: s}}}, b.Info()); err != nil {
			return fmt.Errorf("bench: %d² does not fit on %s: %w", s, b.Name(), err)
		}
	}
	return nil
}

// validateSizes checks that sizes is non-empty and every size is one the engine accepts.
func validateSizes(sizes []int) error {
	if len(sizes) == 0 {
		return errors.New("bench: no image sizes")
	}
	for _, s := range sizes {
		if s > engine.EngineMaxSidePx { // else floored to a multiple, as the engine sizes pictures
			return fmt.Errorf("bench: size %w", engine.CheckEngineSize(s))
		}
		if err := engine.CheckEngineSize(s / engine.SizeMultiple * engine.SizeMultiple); err != nil {
			return fmt.Errorf("bench: size %d px: %w", s, err)
		}
	}
	return nil
}
