package app

import (
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func TestAutomateTakesScreenshot(t *testing.T) {
	fake := newFakeGen()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	w.Resize(fyne.NewSize(1280, 860))
	h := &harness{t: t, win: w}
	shot := filepath.Join(t.TempDir(), "shot.png")
	u, err := newUI(a, w, Options{DataDir: t.TempDir(), ModelDir: tinyModel(t), Prompt: "a lighthouse",
		AutoGenerate: true, ScreenshotPath: shot, Open: fake.open, calibrate: fakeCalibrate, devices: fakeDevices}, h.post)
	if err != nil {
		t.Fatal(err)
	}
	h.ui = u
	t.Cleanup(h.close)
	errc := make(chan error, 1)
	go func() { errc <- u.Automate() }()
	var autoErr error
	done := false
	h.waitFor("Automate", 20*time.Second, func() bool {
		select {
		case autoErr = <-errc:
			done = true
		default:
		}
		return done
	})
	if autoErr != nil {
		t.Fatal(autoErr)
	}
	if u.gallery.Len() != 1 || fake.lastRequest().Prompt != "a lighthouse" {
		t.Errorf("automatic run: %d images, prompt %q", u.gallery.Len(), fake.lastRequest().Prompt)
	}
	w2, h2, err := imageSize(shot)
	if err != nil || w2 < 100 || h2 < 100 {
		t.Errorf("screenshot %dx%d: %v", w2, h2, err)
	}
}
