package app

import (
	"bytes"
	"kleinbild/app/imagefile"
	"kleinbild/app/internal/uitest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func TestAutomateTakesScreenshot(t *testing.T) {
	shot := filepath.Join(t.TempDir(), "shot.png")
	u, fake, autoErr := automate(t, tinyModel(t), shot)
	if autoErr != nil {
		t.Fatal(autoErr)
	}
	if u.Gallery.Len() != 1 || fake.lastRequest().Prompt != "a lighthouse" {
		t.Errorf("automatic run: %d images, prompt %q", u.Gallery.Len(), fake.lastRequest().Prompt)
	}
	w2, h2, err := imagefile.Size(shot)
	if err != nil || w2 < 100 || h2 < 100 {
		t.Errorf("screenshot %dx%d: %v", w2, h2, err)
	}
}

// TestScreenshotIsAUserOutput: --screenshot goes through the writer generate -o uses: a link
// to a device stays a link and the device stays a device, and a model file is refused with
// both paths named (issue 23 item 2: both were replaced by a PNG).
func TestScreenshotIsAUserOutput(t *testing.T) {
	tmp := t.TempDir()
	devLink := filepath.Join(tmp, "null.png")
	if err := os.Symlink(os.DevNull, devLink); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, _, err := automate(t, tinyModel(t), devLink); err != nil {
		t.Errorf("screenshot to a link to %s: %v", os.DevNull, err)
	}
	if st, err := os.Lstat(devLink); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	model := filepath.Join(tmp, "model")
	if err := os.CopyFS(model, os.DirFS(tinyModel(t))); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(model, "model_index.json")
	before, _ := os.ReadFile(victim)
	_, _, err := automate(t, model, victim)
	if err == nil || !strings.Contains(err.Error(), victim) {
		t.Errorf("screenshot over the model index: %v", err)
	}
	if after, _ := os.ReadFile(victim); !bytes.Equal(before, after) {
		t.Errorf("the model index was overwritten")
	}
}

// TestRememberedInvalidSettingsReset: a settings.json remembering an invalid width and an
// unknown device does not block --generate: both are reset, with a notice (issue 23 item 13).
func TestRememberedInvalidSettingsReset(t *testing.T) {
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, "settings.json"), []byte(`{"width": 250, "height": 64, "device": "garbage"}`), 0o644)
	u, fake, err := automateIn(t, data, tinyModel(t), "")
	if err != nil {
		t.Fatalf("generation with remembered invalid settings: %v", err)
	}
	if r := fake.lastRequest(); r.Width == 250 || u.Gallery.Len() != 1 {
		t.Errorf("request %d×%d, %d images", r.Width, r.Height, u.Gallery.Len())
	}
}

// automate runs UI.Automate with a fake generator on model, screenshot to shot.
func automate(t *testing.T, model, shot string) (*UI, *fakeGen, error) {
	return automateIn(t, t.TempDir(), model, shot)
}

// automateIn is automate with the data folder data.
func automateIn(t *testing.T, data, model, shot string) (*UI, *fakeGen, error) {
	fake := newFakeGen()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	w.Resize(fyne.NewSize(1280, 860))
	h := harnessOn(t, a, w)
	u, err := newUI(a, w, Options{DataDir: data, ModelDir: model, Prompt: "a lighthouse",
		AutoGenerate: true, ScreenshotPath: shot, Open: fake.open, calibrate: fakeCalibrate, devices: uitest.FakeDevices}, h.post)
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
	return u, fake, autoErr
}

// TestAutomateWithoutPrompt: gui --generate with no prompt (none given, none remembered)
// says that the prompt is empty and how to give one, not "some settings are invalid"
// (issue 37 item 12).
func TestAutomateWithoutPrompt(t *testing.T) {
	fake := newFakeGen()
	a := test.NewTempApp(t)
	w := a.NewWindow("Kleinbild")
	h := harnessOn(t, a, w)
	u, err := newUI(a, w, Options{DataDir: t.TempDir(), ModelDir: tinyModel(t), AutoGenerate: true,
		Open: fake.open, calibrate: fakeCalibrate, devices: uitest.FakeDevices}, h.post)
	if err != nil {
		t.Fatal(err)
	}
	h.ui = u
	t.Cleanup(h.close)
	errc := make(chan error, 1)
	go func() { errc <- u.Automate() }()
	var autoErr error
	h.waitFor("Automate", 20*time.Second, func() bool {
		select {
		case autoErr = <-errc:
			return true
		default:
			return false
		}
	})
	if autoErr == nil || !strings.Contains(autoErr.Error(), "prompt is empty") || !strings.Contains(autoErr.Error(), "--prompt") {
		t.Errorf("--generate without a prompt: %v", autoErr)
	}
}
