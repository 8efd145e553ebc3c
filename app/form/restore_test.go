package form

import (
	"path/filepath"
	"slices"
	"testing"

	"fyne.io/fyne/v2"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// TestRestoreFillsTheForm: an image's settings fill every field, lock the seed, select the
// schedule in its menu and become the references. (Dropping the image to get there is
// root app's TestDropKleinbildPNGOffersRestore.)
func TestRestoreFillsTheForm(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	dir := t.TempDir()
	want := []string{filepath.Join(dir, "ref.png"), filepath.Join(dir, "gone.png")}
	c.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "a castle on a hill", Seed: 1234,
		Width: 768, Height: 512, Steps: 3, Schedule: "linear", References: want}})
	if c.Prompt.Text != "a castle on a hill" || c.Width.Text != "768" || c.Height.Text != "512" ||
		c.Steps.Text != "3" || c.Seed.Text != "1234" || !c.SeedIsLocked() || c.schedule.Selected != "Linear" {
		t.Errorf("restored: prompt %q, %s×%s, steps %s, seed %s (locked %v), schedule %q",
			c.Prompt.Text, c.Width.Text, c.Height.Text, c.Steps.Text, c.Seed.Text, c.SeedIsLocked(), c.schedule.Selected)
	}
	if got := c.Refs.RefPaths(); !slices.Equal(got, want) {
		t.Errorf("restored references %v, want %v", got, want)
	}
}

// Issue 35: a job edited back into the form keeps its schedule when it is none of the
// menu's usual ones ("power:1.5" showed, and then ran, the default). (Opening it from the
// queue is root app's TestEditedJobKeepsItsSchedule.)
func TestRestoredRequestKeepsItsSchedule(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	req := engine.Request{Settings: engine.Settings{Prompt: "a dune", Width: 256, Height: 256, Steps: 4, Seed: 5, Schedule: "power:1.5"}}
	c.RestoreRequest(req, func() {})
	if f, ok := c.ReadForm(); !ok || f.Schedule != "power:1.5" {
		t.Errorf("form schedule %q (ok %v), want power:1.5", f.Schedule, ok)
	}
	if got := c.schedule.Selected; got != "Power 1.5" {
		t.Errorf("menu shows %q", got)
	}
	c.setSchedule("linear") // the usual menu again
	if f, _ := c.ReadForm(); f.Schedule != "linear" || len(c.schedule.Options) != 3 {
		t.Errorf("schedule %q, options %v", f.Schedule, c.schedule.Options)
	}
}
