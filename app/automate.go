package app

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/png"
	"time"

	"fyne.io/fyne/v2/driver/software"

	"kleinbild/app/run"
	"kleinbild/engine"
	"kleinbild/internal/atomicfile"
)

// settleDelay lets the window draw the final state before it is captured.
const settleDelay = 700 * time.Millisecond

// Automate performs the scripted session the Options ask for: with AutoGenerate it
// generates once from the current settings (Count images when set) and waits until the result is shown in the
// viewer and the gallery; with ScreenshotPath it then captures the window to that PNG
// (through atomicfile.WriteOutput, as generate -o writes). Call it from its own goroutine once the window is showing; it returns the
// generation's error, if any, after taking the screenshot anyway.
func (u *UI) Automate() error {
	<-u.GalleryReady
	var runErr error
	if u.opts.AutoGenerate {
		started := make(chan *run.State, 1)
		startErr := make(chan error, 1)
		u.Post(func() {
			if u.opts.Count > 0 {
				u.ctl.SetCount(u.opts.Count)
			}
			r, err := u.run.StartGenerate()
			if err != nil {
				u.ShowError(err)
				startErr <- u.ctl.ExplainInvalid(err)
				return
			}
			started <- r
		})
		select {
		case err := <-startErr:
			runErr = fmt.Errorf("automatic generation did not start: %w", err)
		case r := <-started:
			out := <-r.Outcome()
			runErr = out.Err
		}
	}
	if u.opts.ScreenshotPath == "" {
		return runErr
	}
	time.Sleep(settleDelay)
	shot := make(chan image.Image, 1)
	var modelDir string
	u.Post(func() { modelDir = u.model.ModelDir(); shot <- u.captureWindow() })
	img := <-shot
	if img == nil {
		return errors.Join(runErr, errors.New("the window could not be captured"))
	}
	// A user-named output: the writer generate -o uses, never over the model's files.
	if err := atomicfile.CheckOutput(u.opts.ScreenshotPath, engine.ModelFiles(modelDir)...); err != nil {
		return errors.Join(runErr, err)
	}
	err := atomicfile.WriteOutput(u.opts.ScreenshotPath, func(w *bufio.Writer) error { return png.Encode(w, img) })
	return errors.Join(runErr, err)
}

// captureWindow renders the window content to an image (UI goroutine). Some OpenGL stacks
// (Mesa's llvmpipe under Xvfb) read back an empty front buffer; the same content is then
// painted with Fyne's software painter instead.
func (u *UI) captureWindow() (img image.Image) {
	defer func() {
		// Fyne's software painter has panicked on degenerate images; a failed
		// screenshot must not take the app down.
		if recover() != nil {
			img = nil
		}
	}()
	c := u.Win.Canvas()
	if img := c.Capture(); img != nil && !isUniform(img) {
		return img
	}
	content := u.Win.Content()
	sc := software.NewCanvas()
	sc.SetPadded(false)
	sc.SetScale(c.Scale())
	sc.Resize(c.Size())
	sc.SetContent(content)
	defer u.Win.SetContent(content)
	return sc.Capture()
}

// isUniform reports whether every pixel of img has the same colour.
func isUniform(img image.Image) bool {
	b := img.Bounds()
	first := img.At(b.Min.X, b.Min.Y)
	r0, g0, b0, a0 := first.RGBA()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			if r != r0 || g != g0 || bl != b0 || a != a0 {
				return false
			}
		}
	}
	return true
}
