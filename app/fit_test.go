package app

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestEstimateCoversEveryImage: the time shown covers the whole run, every image of
// "Images per run" (the prompt is encoded once). (Before: 9 images were estimated at the
// time of one.)
func TestEstimateCoversEveryImage(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	fit := u.ctl.fit
	h.waitFor("the fit line with a time", 5*time.Second, func() bool {
		return fit.Visible() && strings.Contains(fit.Text, " · about ")
	})
	one, ok := u.fit.estimate()
	if !ok || one.Seconds <= 0 {
		t.Fatalf("no time for one image: %+v", one)
	}
	u.ctl.setCount(9)
	h.waitFor("the fit line for 9 images", 5*time.Second, func() bool { return strings.Contains(fit.Text, "for 9 images") })
	nine, _ := u.fit.estimate()
	p := nine.PhaseSeconds
	want := p.Load + p.Encode + p.References + 9*(p.Denoise+p.Decode) // the model is loaded once
	if math.Abs(nine.Seconds-want) > 1e-9*want || nine.Seconds < 8*(p.Denoise+p.Decode) {
		t.Errorf("9 images: %.3f s, want %.3f s (one image %.3f s)", nine.Seconds, want, one.Seconds)
	}
}
